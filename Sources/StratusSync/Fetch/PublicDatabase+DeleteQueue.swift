import Foundation
import StratusClient
import StratusLogging
import StratusWire

extension PublicDatabase {
    // MARK: DeleteQueue

    /// After records were deleted: one DeleteQueue entry per record per other active device (retired
    /// ones, silent longer than ``SyncConfiguration/deviceRetirement``, get none). The device list is
    /// read once, *after* the deletions, so a device either is in it or checks in later and finds the
    /// records gone by itself (its first fetch, or its full resync, runs after its check-in).
    func queueDeletions(_ deleted: [OutboxEntry]) async throws {
        guard !deleted.isEmpty else { return }
        let devices = try await registeredDevices()
        // The latest check-in is a lower bound of the server's time: a device is skipped only when
        // it will find itself retired too.
        guard let now = devices.compactMap(\.lastCheckIn).max() else { return }
        let active = devices.filter {
            !PublicRecords.isRetired(lastCheckIn: $0.lastCheckIn, now: now, after: configuration.deviceRetirement)
        }
        let others = active.filter { $0.deviceID != configuration.deviceID }
        // Weak entities the server deleted with a record (DELETE_SELF) go to every device, this one included.
        let owned = try ownedRecords(of: deleted.map(\.recordName))
        var deletions: [(String, String, String)] = []
        var named: Set<String> = []
        func add(_ deviceID: String, _ recordName: String, _ recordType: String) {
            // A weak record deleted in the batch and with its owner is queued once per device.
            if named.insert(deviceID + "\n" + recordName).inserted { deletions.append((deviceID, recordName, recordType)) }
        }
        for entry in deleted {
            for device in others { add(device.deviceID, entry.recordName, entry.recordType) }
            for device in active {
                for record in owned[entry.recordName] ?? [] { add(device.deviceID, record.name, record.recordType) }
            }
        }
        let queue = deletions.map { deviceID, recordName, recordType in
            let id = RecordID(recordName: PublicRecords.queueRecordName(deviceID: deviceID, recordName: recordName), zoneID: zoneID)
            var record = StratusClient.Record(recordType: PublicRecords.deleteQueueType, recordID: id)
            record[PublicRecords.queueDeviceField] = deviceID
            record[PublicRecords.queueRecordField] = recordName
            record[PublicRecords.queueTypeField] = recordType
            return record
        }
        for chunk in stride(from: 0, to: queue.count, by: Database.maximumOperationsPerRequest) {
            let part = Array(queue[chunk..<min(queue.count, chunk + Database.maximumOperationsPerRequest)])
            let results = try await database.modifyRecords(saving: part, deleting: [], savePolicy: .changedKeys, atomically: false)
            for record in part {
                if case .failure(let error)? = results.saveResults[record.recordID] {
                    try error.rethrowIfTransient()
                    let name = record[PublicRecords.queueRecordField] as String? ?? "?"
                    throw SyncError(.rejected, "the server refused the DeleteQueue entry for record '\(name)'", underlying: error)
                }
            }
        }
        logger.debug("queued the deletion of \(deleted.count) records (\(queue.count) DeleteQueue entries)")
    }

    /// The weak records owned (through ``SyncController/ownerField``), directly or not, by each of `recordNames`.
    private func ownedRecords(of recordNames: [String]) throws -> [String: [(name: String, recordType: String)]] {
        let weak = try bookkeeping.baseNames().filter { descriptions[$0.1]?.type.isWeak ?? false }
        var owners: [String: [(String, String)]] = [:]
        for (name, base) in try bookkeeping.bases(weak.map(\.0)) {
            if case .reference(let owner)? = base.record.fields?[SyncController.ownerField] {
                owners[owner.recordName, default: []].append((name, base.recordType))
            }
        }
        var result: [String: [(name: String, recordType: String)]] = [:]
        for recordName in recordNames {
            var found: [(name: String, recordType: String)] = []
            var frontier = [recordName]
            var seen: Set<String> = [recordName]
            while let next = frontier.popLast() {
                for (name, type) in owners[next] ?? [] where seen.insert(name).inserted {
                    found.append((name, type))
                    frontier.append(name)
                }
            }
            result[recordName] = found
        }
        return result
    }

    /// The DeleteQueue entries addressed to a device.
    func queueEntries(for deviceID: String) async throws -> [StratusClient.Record] {
        try await queryModified(
            recordType: PublicRecords.deleteQueueType, since: nil, filters: [.equals(.field(PublicRecords.queueDeviceField), deviceID)])
    }

    /// Removes committed entries from the server. Entries the server refuses to delete (created by
    /// another user, with the default security roles) are remembered as applied and never delivered again.
    func acknowledge(_ entries: [String], resynced: Bool) async throws {
        if resynced { try bookkeeping.setMeta(Meta.fullResync, nil) }
        var pending = try appliedQueueEntries()
        pending.formUnion(entries)
        try setAppliedQueueEntries(pending)
        let ids = pending.sorted().map { RecordID(recordName: $0, zoneID: zoneID) }
        let removed = try await deleteIgnoringRefusals(ids)
        try setAppliedQueueEntries(pending.subtracting(removed))
    }

    /// Deletes records; returns the names gone from the server (deleted now or already missing).
    /// Refusals (another user's record) are left alone.
    func deleteIgnoringRefusals(_ ids: [RecordID]) async throws -> Set<String> {
        var gone: Set<String> = []
        for chunk in stride(from: 0, to: ids.count, by: Database.maximumOperationsPerRequest) {
            let part = Array(ids[chunk..<min(ids.count, chunk + Database.maximumOperationsPerRequest)])
            let results = try await database.modifyRecords(saving: [], deleting: part, atomically: false)
            for id in part {
                switch results.deleteResults[id] {
                case .success?: gone.insert(id.recordName)
                case .failure(let error)? where error.code == .unknownItem: gone.insert(id.recordName)
                case .failure(let error)?: try error.rethrowIfTransient()
                case nil: continue
                }
            }
        }
        return gone
    }

    func appliedQueueEntries() throws -> Set<String> {
        guard let data = try bookkeeping.meta(Meta.appliedQueueEntries) else { return [] }
        return Set(String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init))
    }

    private func setAppliedQueueEntries(_ names: Set<String>) throws {
        try bookkeeping.setMeta(Meta.appliedQueueEntries, names.isEmpty ? nil : Data(names.sorted().joined(separator: "\n").utf8))
    }

    // MARK: Queries

    /// Every record of a type modified at or after `since` (all when `nil`), oldest first, page by page.
    /// A type the schema does not know yet (nothing was ever saved) has no records.
    func queryModified(recordType: String, since: Date?, filters: [QueryFilter] = []) async throws -> [StratusClient.Record] {
        let start = since ?? Date(timeIntervalSince1970: 0)
        let query = Query(
            recordType: recordType, filters: [.greaterThanOrEquals(.modifiedTimestamp, start)] + filters,
            sorts: [.ascending(QueryKey<Date>.modifiedTimestamp)])
        var found: [StratusClient.Record] = []
        do {
            for try await record in database.allRecords(matching: query, inZoneWith: zoneID) {
                found.append(record)
            }
        } catch let error as StratusError where error.code == .invalidArguments && error.message.contains("did not find record type") {
            return []
        }
        return found
    }
}
