/// The `type` tag of a record field value, and the field types of a schema.
///
/// Lists carry their element family in the tag (`STRING_LIST`, never a bare `LIST`). Assets are
/// written `ASSETID`/`ASSETID_LIST`; the aliases `ASSET`/`ASSET_LIST` are accepted on input.
/// `UNKNOWN_LIST` is the tag CloudKit uses for an empty list whose element type is unknown.
///
/// CloudKit reference: Types ("Record Field Dictionary"); Apple's CloudKit Web Services Reference: “Record field (field value) dictionary”.
public enum FieldType: RawRepresentable, Hashable, Sendable, CaseIterable, Codable, CustomStringConvertible {
    /// `STRING`.
    case string
    /// `INT64` (also used for booleans, as 0/1).
    case int64
    /// `DOUBLE`.
    case double
    /// `TIMESTAMP`: whole milliseconds since 1970.
    case timestamp
    /// `BYTES`: base64 text.
    case bytes
    /// `REFERENCE`.
    case reference
    /// `ASSETID` (input alias `ASSET`).
    case asset
    /// `LOCATION`.
    case location
    /// `STRING_LIST`.
    case stringList
    /// `INT64_LIST`.
    case int64List
    /// `DOUBLE_LIST`.
    case doubleList
    /// `TIMESTAMP_LIST`.
    case timestampList
    /// `BYTES_LIST`.
    case bytesList
    /// `REFERENCE_LIST`.
    case referenceList
    /// `ASSETID_LIST` (input alias `ASSET_LIST`).
    case assetList
    /// `LOCATION_LIST`.
    case locationList
    /// `UNKNOWN_LIST`: an empty list with no element type.
    case unknownList

    /// Creates a type from its wire tag, accepting the `ASSET` and `ASSET_LIST` aliases.
    ///
    /// - Parameter rawValue: The tag, such as `"TIMESTAMP"`.
    public init?(rawValue: String) {
        switch rawValue {
        case "STRING": self = .string
        case "INT64": self = .int64
        case "DOUBLE": self = .double
        case "TIMESTAMP": self = .timestamp
        case "BYTES": self = .bytes
        case "REFERENCE": self = .reference
        case "ASSETID", "ASSET": self = .asset
        case "LOCATION": self = .location
        case "STRING_LIST": self = .stringList
        case "INT64_LIST": self = .int64List
        case "DOUBLE_LIST": self = .doubleList
        case "TIMESTAMP_LIST": self = .timestampList
        case "BYTES_LIST": self = .bytesList
        case "REFERENCE_LIST": self = .referenceList
        case "ASSETID_LIST", "ASSET_LIST": self = .assetList
        case "LOCATION_LIST": self = .locationList
        case "UNKNOWN_LIST": self = .unknownList
        default: return nil
        }
    }

    /// The tag written on the wire (`ASSETID`, never `ASSET`).
    public var rawValue: String { staticRawValue.description }

    /// The wire tag.
    public var description: String { rawValue }

    /// Whether this is a `*_LIST` type.
    public var isList: Bool { listElementType != nil || self == .unknownList }

    /// The element type of a list type; `nil` for scalars and `UNKNOWN_LIST`.
    public var listElementType: FieldType? {
        switch self {
        case .stringList: .string
        case .int64List: .int64
        case .doubleList: .double
        case .timestampList: .timestamp
        case .bytesList: .bytes
        case .referenceList: .reference
        case .assetList: .asset
        case .locationList: .location
        default: nil
        }
    }

    /// The list type whose elements have this type; `nil` for list types.
    public var listType: FieldType? {
        switch self {
        case .string: .stringList
        case .int64: .int64List
        case .double: .doubleList
        case .timestamp: .timestampList
        case .bytes: .bytesList
        case .reference: .referenceList
        case .asset: .assetList
        case .location: .locationList
        default: nil
        }
    }

    /// Decodes a tag, failing with ``WireError/Code/unknownFieldType`` for anything unknown.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: ``WireError`` naming the unknown tag and its path.
    public init(from decoder: any Decoder) throws {
        let tag = try decoder.singleValueContainer().decode(String.self)
        guard let type = FieldType(rawValue: tag) else {
            throw WireError(code: .unknownFieldType, message: "unknown field type '\(tag)'", codingPath: decoder.codingPath)
        }
        self = type
    }

    /// Encodes the wire tag.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
