import Foundation
import StratusClient
import StratusLogging
import StratusWire

/// The public database: no change feed, so fetches query each type by server modification time,
/// and deletions travel as DeleteQueue records, one per registered device.
extension SyncController {
    /// Bookkeeping keys of the public path.
    private enum PublicMeta {
        /// Set when this device was found retired, until a full resync commits.
        static let fullResync = "publicFullResync"
        /// DeleteQueue entries applied and committed whose server copy is not deleted yet (one name a line).
        static let appliedQueueEntries = "publicAppliedQueueEntries"
    }

    /// The device's check-in: the server's time now, and whether the device had been retired.
    struct CheckIn: Sendable {
        var serverNow: Date
        var wasRetired: Bool
    }

    /// Checks in, then fetches: every entity type queried from (last modification seen − overlap),
    /// sorted by modification time; deletions from this device's DeleteQueue entries. A retired
    /// device (or a forced sync) fetches everything and treats what it synced but the server no
    /// longer has as deleted. The entries are removed once the delegate has committed the batch.
    func fetchPublicChanges(scope: FetchScope) async throws -> SyncChanges {
        let startToken = try bookkeeping.changeToken
        let cursor = try PublicCursor(token: startToken)
        let checkIn = try await self.checkIn(hasSynced: startToken != nil)
        var full = false
        var only: Set<String>?
        switch scope {
        case .delta: break
        case .full(let types):
            full = true
            only = types
        case .recovery:
            full = true
        }
        if checkIn.wasRetired {
            logger.info("device \(configuration.deviceID) was retired (silent too long); doing a full resync")
            try bookkeeping.setMeta(PublicMeta.fullResync, Data("1".utf8))
        }
        let resync = try bookkeeping.meta(PublicMeta.fullResync) != nil
        if resync {
            full = true
            only = nil
        }
        try await retireSilentDevices(now: checkIn.serverNow)

        var next = cursor
        var records: [StratusClient.Record] = []
        for type in descriptions.keys.sorted() where only?.contains(type) ?? true {
            let start = full ? nil : cursor.queryStart(type, overlap: configuration.publicQueryOverlap)
            let found = try await queryModified(recordType: type, since: start)
            for record in found {
                if let date = record.modificationDate { next.advance(type, to: date) }
            }
            records += found
        }

        let applied = try appliedQueueEntries()
        var entries: [String] = []
        var deletions: [(name: String, recordType: String?)] = []
        for entry in try await queueEntries(for: configuration.deviceID) {
            let entryName = entry.recordID.recordName
            entries.append(entryName)
            guard !applied.contains(entryName), case .string(let name)? = entry[PublicRecords.queueRecordField] else { continue }
            let type: String? = if case .string(let type)? = entry[PublicRecords.queueTypeField] { type } else { nil }
            deletions.append((name, type))
        }
        let deleted = Set(deletions.map(\.name))
        records.removeAll { deleted.contains($0.recordID.recordName) }

        let batch = PendingBatch(startToken: startToken, endToken: next.token, generation: generation)
        let acknowledged = entries
        let afterCommit: @Sendable () async throws -> Void = { [self] in
            try await self.acknowledge(acknowledged, resynced: resync)
        }
        let fetched = FetchedRecords(records: records, deletions: deletions, full: full, only: only, missing: full ? .deleted : .ignored)
        return try await deliver(fetched, batch: batch, afterCommit: afterCommit)
    }

    // MARK: Devices

    /// Registers or refreshes this device's Device record. Its modification date is the check-in
    /// time on the server's clock; a device whose previous check-in is older than
    /// ``SyncConfiguration/deviceRetirement`` (or whose record another device removed) was retired.
    func checkIn(hasSynced: Bool) async throws -> CheckIn {
        let id = RecordID(recordName: PublicRecords.deviceRecordName(configuration.deviceID), zoneID: zoneID)
        var previous: Date?
        do {
            previous = try await database.record(for: id).modificationDate
        } catch let error as StratusError where error.code == .unknownItem {
            previous = nil
        }
        var record = StratusClient.Record(recordType: PublicRecords.deviceType, recordID: id)
        record[PublicRecords.deviceIDField] = configuration.deviceID
        record[PublicRecords.lastCheckInField] = editTime()
        let results = try await database.modifyRecords(saving: [record], deleting: [], savePolicy: .changedKeys, atomically: false)
        guard let result = results.saveResults[id] else {
            throw StratusError(.serverResponseLost, "the server did not answer for the Device record of '\(configuration.deviceID)'")
        }
        let saved: StratusClient.Record
        do {
            saved = try result.get()
        } catch {
            try Self.rethrowIfTransient(error)
            throw SyncError(.rejected, "the server refused the Device record of '\(configuration.deviceID)'", underlying: error)
        }
        let now = saved.modificationDate ?? editTime()
        if let date = saved.modificationDate {
            skew = date.timeIntervalSince(configuration.now())
            storeSkew()
        }
        let retired = hasSynced && PublicRecords.isRetired(lastCheckIn: previous, now: now, after: configuration.deviceRetirement)
        logger.debug("device \(configuration.deviceID) checked in")
        return CheckIn(serverNow: now, wasRetired: retired)
    }

    /// Every registered device: (device ID, last check-in on the server's clock).
    func registeredDevices() async throws -> [(deviceID: String, lastCheckIn: Date?, record: StratusClient.Record)] {
        try await queryModified(recordType: PublicRecords.deviceType, since: nil).compactMap { record in
            guard case .string(let id)? = record[PublicRecords.deviceIDField] else { return nil }
            return (id, record.modificationDate, record)
        }
    }

    /// Retires devices silent for longer than ``SyncConfiguration/deviceRetirement``: removes their
    /// Device record, then the DeleteQueue entries queued for them before now (an entry written later
    /// was written because the device checked in again). A retired device that comes back finds its
    /// record gone or stale and does a full resync. Records another user created are left alone.
    private func retireSilentDevices(now: Date) async throws {
        for device in try await registeredDevices() where device.deviceID != configuration.deviceID {
            guard PublicRecords.isRetired(lastCheckIn: device.lastCheckIn, now: now, after: configuration.deviceRetirement) else { continue }
            guard try await deleteIgnoringRefusals([device.record.recordID]).contains(device.record.recordID.recordName) else { continue }
            let entries = try await queueEntries(for: device.deviceID).filter { ($0.modificationDate ?? now) <= now }
            _ = try await deleteIgnoringRefusals(entries.map(\.recordID))
            logger.info("retired device \(device.deviceID), silent since \(device.lastCheckIn.map { "\($0)" } ?? "never")")
        }
    }

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
                    try Self.rethrowIfTransient(error)
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
            if case .reference(let owner)? = base.record.fields?[Self.ownerField] {
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
    private func queueEntries(for deviceID: String) async throws -> [StratusClient.Record] {
        try await queryModified(
            recordType: PublicRecords.deleteQueueType, since: nil, filters: [.equals(.field(PublicRecords.queueDeviceField), deviceID)])
    }

    /// Removes committed entries from the server. Entries the server refuses to delete (created by
    /// another user, with the default security roles) are remembered as applied and never delivered again.
    private func acknowledge(_ entries: [String], resynced: Bool) async throws {
        if resynced { try bookkeeping.setMeta(PublicMeta.fullResync, nil) }
        var pending = try appliedQueueEntries()
        pending.formUnion(entries)
        try setAppliedQueueEntries(pending)
        let ids = pending.sorted().map { RecordID(recordName: $0, zoneID: zoneID) }
        let removed = try await deleteIgnoringRefusals(ids)
        try setAppliedQueueEntries(pending.subtracting(removed))
    }

    /// Deletes records; returns the names gone from the server (deleted now or already missing).
    /// Refusals (another user's record) are left alone.
    private func deleteIgnoringRefusals(_ ids: [RecordID]) async throws -> Set<String> {
        var gone: Set<String> = []
        for chunk in stride(from: 0, to: ids.count, by: Database.maximumOperationsPerRequest) {
            let part = Array(ids[chunk..<min(ids.count, chunk + Database.maximumOperationsPerRequest)])
            let results = try await database.modifyRecords(saving: [], deleting: part, atomically: false)
            for id in part {
                switch results.deleteResults[id] {
                case .success?: gone.insert(id.recordName)
                case .failure(let error)? where error.code == .unknownItem: gone.insert(id.recordName)
                case .failure(let error)?: try Self.rethrowIfTransient(error)
                case nil: continue
                }
            }
        }
        return gone
    }

    private func appliedQueueEntries() throws -> Set<String> {
        guard let data = try bookkeeping.meta(PublicMeta.appliedQueueEntries) else { return [] }
        return Set(String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init))
    }

    private func setAppliedQueueEntries(_ names: Set<String>) throws {
        try bookkeeping.setMeta(PublicMeta.appliedQueueEntries, names.isEmpty ? nil : Data(names.sorted().joined(separator: "\n").utf8))
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
