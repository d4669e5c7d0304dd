/// A share participant's role: `OWNER`, `ADMINISTRATOR`, `USER`, `PUBLIC_USER` or `UNKNOWN`.
///
/// An open set: values a server sends that are not listed here are kept, not rejected.
///
/// CloudKit reference: Types ("Share Participant Dictionary"); Apple's CloudKit Web Services Reference: “Sharing dictionaries”.
public struct ParticipantType: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The wire string.
    public var rawValue: String

    /// Creates a participant type from its wire string.
    ///
    /// - Parameter rawValue: The wire string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The wire string.
    public var description: String { rawValue }

    /// `OWNER`.
    public static let owner = ParticipantType(rawValue: "OWNER")
    /// `ADMINISTRATOR`.
    public static let administrator = ParticipantType(rawValue: "ADMINISTRATOR")
    /// `USER`.
    public static let user = ParticipantType(rawValue: "USER")
    /// `PUBLIC_USER`.
    public static let publicUser = ParticipantType(rawValue: "PUBLIC_USER")
    /// `UNKNOWN`.
    public static let unknown = ParticipantType(rawValue: "UNKNOWN")
}
