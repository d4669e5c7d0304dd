/// Where a `records/query` result page ended: send it back with the same query for the next page.
public struct ContinuationMarker: OpaqueToken {
    /// The opaque token text.
    public var rawValue: String

    /// Wraps token text received from the wire.
    public init(rawValue: String) { self.rawValue = rawValue }
}
