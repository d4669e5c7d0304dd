/// A position in a zone's or database's change history: `syncToken` and `metaSyncToken`.
///
/// Returned by `records/changes`, `changes/zone`, `changes/database`, `zones/changes` and in zone dictionaries; send it back to fetch only later changes. Opaque to clients; encodes as a plain JSON string.
public struct SyncToken: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The opaque token text.
    public var rawValue: String

    /// Wraps token text received from the wire.
    ///
    /// - Parameter rawValue: The token text.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Wraps token text received from the wire.
    ///
    /// - Parameter rawValue: The token text.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Creates a token from a literal (handy in tests).
    ///
    /// - Parameter value: The token text.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The token text.
    public var description: String { rawValue }

    /// Decodes the token from a JSON string.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` if the value is not a string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the token as a JSON string.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
