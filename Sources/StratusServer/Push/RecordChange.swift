/// One committed-to-be change of a record: its state before and after.
///
/// ``RecordModifier`` reports these for every operation that succeeded
/// (cascaded deletions included), in order; push matching and asset
/// reference counting read them inside the same transaction.
struct RecordChange: Sendable {
    /// The live record before the change; `nil` when it was created.
    var before: StoredRecord?
    /// The live record after the change; `nil` when it was deleted.
    var after: StoredRecord?

    /// The record name.
    var recordName: String { after?.recordName ?? before?.recordName ?? "" }

    /// Why it changed, as `ck.qry.fo`: created, updated or deleted.
    var reason: Reason {
        if after == nil { return .deleted }
        return before == nil ? .created : .updated
    }

    /// The query notification reason (`fo`).
    enum Reason: Int, Sendable {
        /// `1`: created.
        case created = 1
        /// `2`: updated.
        case updated = 2
        /// `3`: deleted.
        case deleted = 3
    }
}
