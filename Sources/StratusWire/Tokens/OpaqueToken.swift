/// A string the server mints and the client only hands back: change tags, sync tokens, markers.
///
/// Conforming types are distinct so one can never be passed as another; each
/// encodes as a plain JSON string (the standard library's `Codable` for
/// string-backed `RawRepresentable`).
public protocol OpaqueToken: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
where RawValue == String {
    /// Wraps token text received from the wire.
    init(rawValue: String)
}

extension OpaqueToken {
    /// Wraps token text received from the wire.
    ///
    /// - Parameter rawValue: The token text.
    public init(_ rawValue: String) { self.init(rawValue: rawValue) }

    /// Creates a token from a literal (handy in tests).
    ///
    /// - Parameter value: The token text.
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    /// The token text.
    public var description: String { rawValue }
}
