import Foundation
import StratusClient
import StratusLogging
import StratusWire

/// The public database: no change feed, so fetches query each type by server modification time,
/// and deletions travel as DeleteQueue records, one per registered device. What the public path
/// reads and writes on the server; the controller delivers what it reads
/// (``SyncController/fetchPublicChanges(scope:)``).
struct PublicDatabase: Sendable {
    /// Bookkeeping keys of the public path.
    enum Meta {
        /// Set when this device was found retired, until a full resync commits.
        static let fullResync = "publicFullResync"
        /// DeleteQueue entries applied and committed whose server copy is not deleted yet (one name a line).
        static let appliedQueueEntries = "publicAppliedQueueEntries"
    }

    /// The device's check-in: the server's time now, and whether the device had been retired.
    struct CheckIn: Sendable {
        var serverNow: Date
        /// The server's date of the Device record just written (it measures the clock skew).
        var observed: Date?
        var wasRetired: Bool
    }

    /// What one public fetch read, ready to deliver.
    struct Read: Sendable {
        var fetched: FetchedRecords
        /// The cursor after it.
        var endToken: SyncToken
        /// Removes the DeleteQueue entries read, once the delivery is committed.
        var acknowledge: @Sendable () async throws -> Void
    }

    let database: Database
    let bookkeeping: SyncBookkeeping
    let configuration: SyncConfiguration
    let zoneID: ZoneID
    let descriptions: [String: EntityDescription]
    let logger: Logger

    /// Reads what changed since `startToken` (after the check-in): every entity type queried from
    /// (last modification seen − overlap), sorted by modification time; deletions from this device's
    /// DeleteQueue entries. A retired device (or a forced sync) reads everything and takes what it
    /// synced but the server no longer has as deleted.
    func read(scope: FetchScope, startToken: SyncToken?, checkIn: CheckIn) async throws -> Read {
        let cursor = try PublicCursor(token: startToken)
        var (full, only) = Self.extent(of: scope)
        if checkIn.wasRetired {
            logger.info("device \(configuration.deviceID) was retired (silent too long); doing a full resync")
            try bookkeeping.setMeta(Meta.fullResync, Data("1".utf8))
        }
        let resync = try bookkeeping.meta(Meta.fullResync) != nil
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
        let (entries, deletions) = try await queuedDeletions()
        let deleted = Set(deletions.map(\.name))
        records.removeAll { deleted.contains($0.recordID.recordName) }
        let fetched = FetchedRecords(records: records, deletions: deletions, full: full, only: only, missing: full ? .deleted : .ignored)
        return Read(fetched: fetched, endToken: next.token) { try await acknowledge(entries, resynced: resync) }
    }

    /// Whether a fetch of `scope` reads everything, and the record types it applies (`nil`: all).
    private static func extent(of scope: FetchScope) -> (full: Bool, only: Set<String>?) {
        switch scope {
        case .delta: (false, nil)
        case .full(let types): (true, types)
        case .recovery: (true, nil)
        }
    }

    /// This device's DeleteQueue entries (their names), and the deletions among them not applied yet.
    private func queuedDeletions() async throws -> (entries: [String], deletions: [(name: String, recordType: String?)]) {
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
        return (entries, deletions)
    }

    // MARK: Devices

    /// Registers or refreshes this device's Device record. Its modification date is the check-in
    /// time on the server's clock; a device whose previous check-in is older than
    /// ``SyncConfiguration/deviceRetirement`` (or whose record another device removed) was retired.
    func checkIn(hasSynced: Bool, clock: ClockSkew) async throws -> CheckIn {
        let id = RecordID(recordName: PublicRecords.deviceRecordName(configuration.deviceID), zoneID: zoneID)
        var previous: Date?
        do {
            previous = try await database.record(for: id).modificationDate
        } catch let error as StratusError where error.code == .unknownItem {
            previous = nil
        }
        var record = StratusClient.Record(recordType: PublicRecords.deviceType, recordID: id)
        record[PublicRecords.deviceIDField] = configuration.deviceID
        record[PublicRecords.lastCheckInField] = clock.editTime(configuration.now())
        let results = try await database.modifyRecords(saving: [record], deleting: [], savePolicy: .changedKeys, atomically: false)
        guard let result = results.saveResults[id] else {
            throw StratusError(.serverResponseLost, "the server did not answer for the Device record of '\(configuration.deviceID)'")
        }
        let saved: StratusClient.Record
        do {
            saved = try result.get()
        } catch {
            try error.rethrowIfTransient()
            throw SyncError(.rejected, "the server refused the Device record of '\(configuration.deviceID)'", underlying: error)
        }
        let now = saved.modificationDate ?? clock.editTime(configuration.now())
        let retired = hasSynced && PublicRecords.isRetired(lastCheckIn: previous, now: now, after: configuration.deviceRetirement)
        logger.debug("device \(configuration.deviceID) checked in")
        return CheckIn(serverNow: now, observed: saved.modificationDate, wasRetired: retired)
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
    func retireSilentDevices(now: Date) async throws {
        for device in try await registeredDevices() where device.deviceID != configuration.deviceID {
            guard PublicRecords.isRetired(lastCheckIn: device.lastCheckIn, now: now, after: configuration.deviceRetirement) else { continue }
            guard try await deleteIgnoringRefusals([device.record.recordID]).contains(device.record.recordID.recordName) else { continue }
            let entries = try await queueEntries(for: device.deviceID).filter { ($0.modificationDate ?? now) <= now }
            _ = try await deleteIgnoringRefusals(entries.map(\.recordID))
            logger.info("retired device \(device.deviceID), silent since \(device.lastCheckIn.map { "\($0)" } ?? "never")")
        }
    }
}
