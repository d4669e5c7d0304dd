/// Whether a participant has accepted a share: `INVITED`, `ACCEPTED`, `REMOVED` or `UNKNOWN`.
///
/// An open set: values a server sends that are not listed here are kept, not rejected.
///
/// CloudKit reference: Types ("Share Participant Dictionary"); Apple's CloudKit Web Services Reference: “Sharing dictionaries”.
public struct ParticipantAcceptanceStatus: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The wire string.
    public var rawValue: String

    /// Creates a status from its wire string.
    ///
    /// - Parameter rawValue: The wire string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The wire string.
    public var description: String { rawValue }

    /// `INVITED`.
    public static let invited = ParticipantAcceptanceStatus(rawValue: "INVITED")
    /// `ACCEPTED`.
    public static let accepted = ParticipantAcceptanceStatus(rawValue: "ACCEPTED")
    /// `REMOVED`.
    public static let removed = ParticipantAcceptanceStatus(rawValue: "REMOVED")
    /// `UNKNOWN`.
    public static let unknown = ParticipantAcceptanceStatus(rawValue: "UNKNOWN")
}
