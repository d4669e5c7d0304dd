import StratusWire

/// What a records write does besides saving records, in the same transaction:
/// asset reference counts, and handing the changes to push fan-out (an outbox entry).
struct RecordChangeEffects: Sendable {
    /// Checks asset fields of saved records; `nil` while assets are off.
    var assets: AssetAdmission?
    /// Appends the changes to the push outbox when a subscription could fire on them.
    var push: PushOutboxRecorder
    /// Now, in milliseconds since 1970.
    var now: Int64

    /// Updates asset references and records `changes` for push fan-out; returns whether an outbox
    /// entry was appended (then fan-out is kicked after the commit).
    func apply(_ changes: [RecordChange], zone: ZoneRow, _ tx: any RecordStoreWriter) throws -> Bool {
        for change in changes {
            let before = AssetAdmission.references(of: change.before)
            let after = AssetAdmission.references(of: change.after)
            guard !(before.isEmpty && after.isEmpty) else { continue }
            try tx.replaceAssetReferences(zoneRowID: zone.rowID, recordName: change.recordName, keys: after, now: now)
        }
        return try push.record(changes, zone: zone, tx)
    }
}
