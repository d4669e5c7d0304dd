import StratusWire

/// Hands a records write's changes to push fan-out: one outbox entry, in the write's transaction.
///
/// This is all a write does about subscriptions: for each record type it changed, one indexed
/// look for a subscription that could fire (same type, or a zone subscription, on that zone);
/// if there is any, the changes of those types — records as they were and are, a notification
/// ID each — are appended to the outbox. The entry commits with the records, so a crash between
/// the commit and fan-out loses no notification; ``PushFanout`` evaluates it after the commit,
/// outside the writer. Subscriptions on other types and zones are never read.
struct PushOutboxRecorder {
    let configuration: PushConfiguration
    /// Now, in milliseconds since 1970.
    let now: Int64
    /// A token that must not receive this write's notifications (the author's own device), if any.
    let skippedToken: String?

    /// Appends an outbox entry for the changes some subscription could fire on; returns whether it did.
    func record(_ changes: [RecordChange], zone: ZoneRow, _ tx: any RecordStoreWriter) throws -> Bool {
        guard !changes.isEmpty, zone.database.scope != .shared else { return false }
        var watched: [String: Bool] = [:]
        var relevant: [RecordChange] = []
        for change in changes {
            guard let recordType = change.after?.recordType ?? change.before?.recordType else { continue }
            let isWatched =
                try watched[recordType]
                ?? {
                    let found = try tx.hasSubscription(watching: recordType, in: zone.database, zoneName: zone.zoneName)
                    watched[recordType] = found
                    return found
                }()
            if isWatched { relevant.append(change) }
        }
        guard !relevant.isEmpty else { return false }
        let payload = PushOutboxPayload(relevant, zoneRowID: zone.rowID, skippedToken: skippedToken, makeNotificationID: configuration.makeNotificationID)
        try tx.appendPushOutbox(NewPushOutboxEntry(database: zone.database, zoneName: zone.zoneName, payload: try payload.encoded(), createdAt: now))
        return true
    }
}
