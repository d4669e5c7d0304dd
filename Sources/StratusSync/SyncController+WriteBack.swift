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
    func writeBack(_ saved: StratusClient.Record, entryName: String) async {
        guard let description = descriptions[saved.recordType] else { return }
        let entity: (any SyncableEntity)?
        if let live = liveEntities[entryName] {
            entity = live
        } else {
            entity = try? await delegate.entity(ofType: description.type, syncID: entryName)
        }
        guard let entity else { return }
        entity.setValue(saved.recordID.recordName, forKey: description.syncIdKey)
        entity.setValue(saved.modificationDate, forKey: description.changeDateKey)
    }

    /// Tells the delegate what became of a save.
    func reportSave(_ entry: OutboxEntry, record: StratusClient.Record?, error: (any Error)?) async {
        guard let description = descriptions[entry.recordType] else { return }
        let entity: (any SyncableEntity)?
        if let live = liveEntities[entry.recordName] {
            entity = live
        } else {
            entity = try? await delegate.entity(ofType: description.type, syncID: entry.recordName)
        }
        await delegate.syncController(self, didSave: entity, record: record, error: error)
    }
}
