import StratusHTTP
import StratusWire

/// What a records write does besides saving records, in the same transaction:
/// asset reference counts and push notifications.
struct RecordChangeEffects: Sendable {
    /// Checks asset fields of saved records; `nil` while assets are off.
    var assets: AssetAdmission?
    /// Queues notifications for matching subscriptions.
    var push: PushFanout
    /// Now, in milliseconds since 1970.
    var now: Int64

    /// Updates asset references and queues notifications for `changes`; returns the courier tokens to wake after commit.
    func apply(_ changes: [RecordChange], zone: ZoneRow, _ tx: any RecordStoreWriter) throws -> Set<String> {
        for change in changes {
            let before = AssetAdmission.references(of: change.before)
            let after = AssetAdmission.references(of: change.after)
            guard !(before.isEmpty && after.isEmpty) else { continue }
            try tx.replaceAssetReferences(zoneRowID: zone.rowID, recordName: change.recordName, keys: after, now: now)
        }
        return try push.enqueue(changes, zone: zone, tx)
    }
}

extension CloudKitService {
    /// The header naming the author's own courier token, which this write's notifications then skip.
    public static let skipPushTokenHeader = "X-Stratus-Skip-Push-Token"

    /// The side effects of a records write by this request.
    func changeEffects(_ context: RequestContext) -> RecordChangeEffects {
        let now = configuration.now()
        return RecordChangeEffects(
            assets: assetFiles == nil ? nil : assetAdmission(context),
            push: PushFanout(configuration: configuration.push, now: now, skippedToken: context.request.headers[Self.skipPushTokenHeader]),
            now: now
        )
    }
}
