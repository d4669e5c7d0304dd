/// A record's version token: the `recordChangeTag`.
///
/// Sent back on `update`, `replace` and `delete` so the server can detect a stale write (`CONFLICT`).
public struct ChangeTag: OpaqueToken {
    /// The opaque token text.
    public var rawValue: String

    /// Wraps token text received from the wire.
    public init(rawValue: String) { self.rawValue = rawValue }
}
