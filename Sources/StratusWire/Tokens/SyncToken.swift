/// A position in a zone's or database's change history: `syncToken` and `metaSyncToken`.
///
/// Returned by `records/changes`, `changes/zone`, `changes/database`, `zones/changes` and in zone
/// dictionaries; send it back to fetch only later changes.
public struct SyncToken: OpaqueToken {
    /// The opaque token text.
    public var rawValue: String

    /// Wraps token text received from the wire.
    public init(rawValue: String) { self.rawValue = rawValue }
}
