/// A share's or participant's permission: `NONE`, `READ_ONLY`, `READ_WRITE` or `UNKNOWN`.
///
/// An open set: values a server sends that are not listed here are kept, not rejected.
///
/// CloudKit reference: Types ("Share Participant Dictionary"); Apple's CloudKit Web Services Reference: “Sharing dictionaries”.
public struct SharePermission: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The wire string.
    public var rawValue: String

    /// Creates a permission from its wire string.
    ///
    /// - Parameter rawValue: The wire string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The wire string.
    public var description: String { rawValue }

    /// `NONE`: no access.
    public static let none = SharePermission(rawValue: "NONE")
    /// `READ_ONLY`.
    public static let readOnly = SharePermission(rawValue: "READ_ONLY")
    /// `READ_WRITE`.
    public static let readWrite = SharePermission(rawValue: "READ_WRITE")
    /// `UNKNOWN`.
    public static let unknown = SharePermission(rawValue: "UNKNOWN")
}
