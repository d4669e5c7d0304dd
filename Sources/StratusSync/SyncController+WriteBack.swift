import Foundation
import StratusClient
import StratusLogging
import StratusWire

extension SyncController {
    /// Hands the delegate the records whose resolved version (after a conflict) the local store has
    /// not received yet, as updates with a ``FinishSync`` that clears their markers — the same path as
    /// fetched changes, so they are persisted before the drain (and `sync()`) returns. Markers are
    /// durable: a process that ends first delivers them at its next drain. A record with a newer edit
    /// waiting waits too (its upload makes a newer version, delivered then), so the edit is not
    /// overwritten in the store.
    func deliverWriteBacks() async throws {
        let names = try bookkeeping.writeBackNames()
        guard !names.isEmpty else { return }
        let bases = try bookkeeping.bases(names)
        var records: [StratusClient.Record] = []
        var batch = PendingBatch(kind: .writeBack, generation: generation)
        for name in names {
            guard let base = bases[name] else {
                batch.writeBacks.append(name)  // the record was deleted since: nothing to write
                continue
            }
            guard try !bookkeeping.hasPendingChanges(for: name) else { continue }
            records.append(try StratusClient.Record(wire: base.record, zoneID: zoneID))
        }
        _ = try await deliver(FetchedRecords(records: records, deletions: [], full: true), batch: batch)
    }

    /// Writes the server's sync ID and modification date of a saved record into the local entity
    /// (its other values reach the store through ``deliverWriteBacks()`` when a conflict changed them).
    /// The date is converted to this device's clock (the server's minus the observed skew), so the
    /// change date an app compares with its own edits is on one clock.
    func writeBack(_ saved: StratusClient.Record, entryName: String) async {
        guard let description = descriptions[saved.recordType] else { return }
        let entity: EntityRef?
        if let live = liveEntities[entryName] {
            entity = live
        } else {
            entity = try? await delegateEntity(ofType: description.type, syncID: entryName)
        }
        guard let entity else { return }
        let name = saved.recordID.recordName
        let date = deviceTime(saved.modificationDate)
        do {
            try await entity.access { entity in
                entity.setValue(name, forKey: description.syncIdKey)
                entity.setValue(date, forKey: description.changeDateKey)
            }
        } catch {
            logger.info("could not write the sync ID and date of record '\(name)' into its entity: \(error)")
        }
    }

    /// A server date on this device's clock.
    func deviceTime(_ date: Date?) -> Date? {
        date.map { $0.addingTimeInterval(-skew) }
    }

    /// Tells the delegate what became of a save.
    func reportSave(_ entry: OutboxEntry, record: StratusClient.Record?, error: (any Error)?) async {
        guard let description = descriptions[entry.recordType] else { return }
        let entity: EntityRef?
        if let live = liveEntities[entry.recordName] {
            entity = live
        } else {
            entity = try? await delegateEntity(ofType: description.type, syncID: entry.recordName)
        }
        await delegateDidSave(entity, record: record, error: error)
    }
}
