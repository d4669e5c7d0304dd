/// The parts of a person's name: the Name Components dictionary.
///
/// CloudKit reference: Types ("Name Components Dictionary"); Apple's CloudKit Web Services Reference: “User dictionaries”.
public struct NameComponents: Hashable, Sendable, Codable {
    /// "Dr."
    public var namePrefix: String?
    /// The first name.
    public var givenName: String?
    /// The middle name.
    public var middleName: String?
    /// The last name.
    public var familyName: String?
    /// "Jr."
    public var nameSuffix: String?
    /// A nickname.
    public var nickname: String?
    /// The phonetic spelling, itself a name components dictionary.
    public var phoneticRepresentation: NameComponents? {
        get { phonetic?.value }
        set { phonetic = newValue.map(PhoneticBox.init) }
    }

    private var phonetic: PhoneticBox?

    private enum CodingKeys: String, CodingKey {
        case namePrefix, givenName, middleName, familyName, nameSuffix, nickname
        case phonetic = "phoneticRepresentation"
    }

    /// Creates name components.
    ///
    /// - Parameters:
    ///   - namePrefix: "Dr."
    ///   - givenName: The first name.
    ///   - middleName: The middle name.
    ///   - familyName: The last name.
    ///   - nameSuffix: "Jr."
    ///   - nickname: A nickname.
    ///   - phoneticRepresentation: The phonetic spelling.
    public init(
        namePrefix: String? = nil, givenName: String? = nil, middleName: String? = nil, familyName: String? = nil,
        nameSuffix: String? = nil, nickname: String? = nil, phoneticRepresentation: NameComponents? = nil
    ) {
        self.namePrefix = namePrefix
        self.givenName = givenName
        self.middleName = middleName
        self.familyName = familyName
        self.nameSuffix = nameSuffix
        self.nickname = nickname
        self.phoneticRepresentation = phoneticRepresentation
    }
}

/// Boxes the recursive `phoneticRepresentation` so `NameComponents` can stay a struct.
private final class PhoneticBox: Hashable, Sendable, Codable {
    let value: NameComponents

    init(_ value: NameComponents) { self.value = value }

    init(from decoder: any Decoder) throws { value = try NameComponents(from: decoder) }

    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }

    static func == (lhs: PhoneticBox, rhs: PhoneticBox) -> Bool { lhs.value == rhs.value }

    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}
