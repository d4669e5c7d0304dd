import Foundation
import StratusClient
import StratusLogging
import StratusWire
import Synchronization

/// One queued sync; `waiter` is resumed when it ends (``KeyValueStore/synchronizeNow()``).
struct SyncRequest: Sendable {
    var waiter: CheckedContinuation<KeyValueStore.SynchronizationResult, any Error>?
}

extension KeyValueStore {
    /// The in-memory mirror of the SQLite file plus sync bookkeeping.
    struct State {
        var values: [String: Value] = [:]
        /// Bytes per key: key (UTF-8) + encoded value.
        var sizes: [String: Int] = [:]
        /// Keys with a change not uploaded yet, and the change's sequence number.
        var pending: [String: Int64] = [:]
        var nextSeq: Int64 = 1
        var token: SyncToken?
        var account: String?
        var subscribed = false
        var syncQueued = false
        var failures = 0
        var retryScheduled = false

        init(_ snapshot: LocalKeyValueStorage.Snapshot) throws {
            for (key, data) in snapshot.values {
                values[key] = try Value.decoded(data)
                sizes[key] = key.utf8.count + data.count
            }
            for (key, entry) in snapshot.pending { pending[key] = entry.seq }
            nextSeq = (snapshot.pending.values.map(\.seq).max() ?? 0) + 1
            token = snapshot.meta["token"].map { SyncToken(rawValue: $0) }
            account = snapshot.meta["account"]
        }

        /// Throws when storing `size` bytes under `key` would pass a limit.
        func admit(key: String, size: Int) throws(KeyValueStoreError) {
            try Self.validate(key: key)
            let otherKeys = sizes.count - (sizes[key] == nil ? 0 : 1)
            let otherBytes = sizes.values.reduce(0, +) - (sizes[key] ?? 0)
            guard let violation = KeyValueContract.violation(key: key, size: size, otherKeys: otherKeys, otherBytes: otherBytes) else { return }
            let kind: KeyValueStoreError.Kind =
                switch violation {
                case .keyTooLong: .keyTooLong
                case .valueTooLarge: .valueTooLarge
                case .tooManyKeys: .tooManyKeys
                case .storeFull: .storeFull
                }
            throw KeyValueStoreError(kind, violation.description)
        }

        /// Throws for a key the server would refuse whatever the value: empty, or with a control character.
        static func validate(key: String) throws(KeyValueStoreError) {
            guard !key.isEmpty, !key.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                let shown = key.unicodeScalars.prefix(80).map { $0.properties.generalCategory == .control ? "\\u{\(String($0.value, radix: 16))}" : String($0) }
                throw KeyValueStoreError(.invalidKey, "key '\(shown.joined())' is not valid: a key is not empty and has no control characters (tab, newline…)")
            }
        }

        mutating func store(key: String, value: Value?, size: Int?) {
            values[key] = value
            sizes[key] = size.map { key.utf8.count + $0 }
        }
    }

    // MARK: The sync

    /// Runs one sync for `request`; schedules a retry after retryable failures.
    func runSync(_ request: SyncRequest) async {
        if request.waiter == nil { state.withLock { $0.syncQueued = false } }
        do {
            let result = try await performSync()
            state.withLock { $0.failures = 0 }
            request.waiter?.resume(returning: result)
        } catch {
            request.waiter?.resume(throwing: error)
            guard !(error is CancellationError) else { return }
            let stratus = error as? StratusError
            configuration.logger.info("key-value sync failed: \(error)")
            if let stratus, stratus.isRetryable || stratus.code == .serverResponseLost {
                scheduleRetry(after: stratus)
            }
        }
    }

    private func scheduleRetry(after error: StratusError) {
        let attempt = state.withLock { state -> Int? in
            guard !state.retryScheduled else { return nil }
            state.retryScheduled = true
            state.failures += 1
            return state.failures
        }
        guard let attempt else { return }
        let backoff = configuration.retryBackoff
        let delay =
            backoff.delay(beforeRetry: min(attempt, 30), retryAfter: error.retryAfter, random: Double.random(in: 0..<1))
            ?? backoff.maximumBackoff
        Task { [weak self] in
            try? await Task.sleep(for: delay)
            self?.state.withLock { $0.retryScheduled = false }
            self?.synchronize()
        }
    }

    /// Zone and account check, upload of pending changes, download of the change feed.
    func performSync() async throws -> SynchronizationResult {
        let database = container.privateCloudDatabase
        try await checkZoneAndAccount(database)
        if configuration.observesPushes, !state.withLock({ $0.subscribed }) {
            try await database.save(Subscription(subscriptionID: Self.zoneID.zoneName, subscriptionType: .zone, zoneID: Self.zoneID))
            state.withLock { $0.subscribed = true }
        }
        let result = try await uploadPending(database)
        try await downloadChanges(database, refused: result.refusedKeys, limits: result.overLimit)
        return SynchronizationResult(refusedKeys: result.refusedKeys.mapValues { $0.reason ?? $0.message }, uploadedKeys: result.uploaded)
    }

    /// Saves the zone (idempotent) and compares its owner with the account last seen.
    private func checkZoneAndAccount(_ database: Database) async throws {
        let zone = try await database.save(RecordZone(zoneID: Self.zoneID))
        guard let owner = zone.zoneID.ownerRecordName else { return }
        let previous = state.withLock { $0.account }
        if previous == owner { return }
        guard let previous else {
            try storage.applyServer(values: [:], meta: ["account": owner])
            state.withLock { $0.account = owner }
            return
        }
        configuration.logger.info("key-value store: account changed from \(previous) to \(owner); clearing local values")
        let cleared = try state.withLock { state -> [String] in
            try storage.wipe(meta: ["account": owner])
            let keys = state.values.keys.sorted()
            state.values = [:]
            state.sizes = [:]
            state.pending = [:]
            state.token = nil
            state.account = owner
            state.subscribed = false
            return keys
        }
        announce(ExternalChange(reason: .accountChange, changedKeys: cleared))
    }

    /// What an upload of pending changes did.
    struct UploadResult {
        var uploaded: [String] = []
        /// Keys refused for good, with the server's error; their changes are dropped.
        var refusedKeys: [String: StratusError] = [:]
        /// Those of them refused over a limit (quota).
        var overLimit: Set<String> { Set(refusedKeys.filter { $0.value.code == .quotaExceeded }.keys) }
    }

    /// Whether the server refused a change for good (a retry would be refused again).
    static func refusesForGood(_ error: StratusError) -> Bool {
        [.quotaExceeded, .invalidArguments, .permissionFailure, .limitExceeded, .serverRejectedRequest].contains(error.code)
    }

    /// Uploads pending changes (last write wins: `forceReplace`); changes the server refuses for good are dropped.
    private func uploadPending(_ database: Database) async throws -> UploadResult {
        let batch = state.withLock { state in state.pending.map { ($0.key, $0.value, state.values[$0.key]) } }
        guard !batch.isEmpty else { return UploadResult() }
        var saves: [StratusClient.Record] = []
        var deletes: [RecordID] = []
        var seqs: [String: Int64] = [:]
        for (key, seq, value) in batch {
            seqs[key] = seq
            let id = RecordID(recordName: key, zoneID: Self.zoneID)
            if let value {
                var record = StratusClient.Record(recordType: Self.recordType, recordID: id)
                record[Self.valueField] = try value.encoded()
                saves.append(record)
            } else {
                deletes.append(id)
            }
        }
        let results = try await database.modifyRecords(saving: saves, deleting: deletes, savePolicy: .allKeys, atomically: false)
        var done: [String: Int64] = [:]
        var result = UploadResult()
        let outcomes = results.saveResults.mapValues { $0.map { _ in () } }.merging(results.deleteResults) { save, _ in save }
        for (id, outcome) in outcomes {
            let key = id.recordName
            switch outcome {
            case .success:
                done[key] = seqs[key]
                result.uploaded.append(key)
            case .failure(let error) where error.code == .unknownItem && results.deleteResults[id] != nil:
                done[key] = seqs[key]  // removing a key the server does not have
                result.uploaded.append(key)
            case .failure(let error) where Self.refusesForGood(error):
                configuration.logger.warning("key-value store: the server refused '\(key)': \(error.reason ?? error.message)")
                done[key] = seqs[key]
                result.refusedKeys[key] = error
            case .failure(let error):
                configuration.logger.info("key-value store: '\(key)' not uploaded: \(error)")
            }
        }
        result.uploaded.sort()
        try state.withLock { state in
            try storage.applyServer(values: [:], clearPending: done)
            for (key, seq) in done where state.pending[key] == seq { state.pending[key] = nil }
        }
        return result
    }

    /// Downloads the zone's changes since the token and applies them to keys without local changes.
    private func downloadChanges(_ database: Database, refused refusedErrors: [String: StratusError], limits: Set<String>) async throws {
        let refused = Set(refusedErrors.keys)
        let token = state.withLock { $0.token }
        var changes: Database.RecordZoneChanges
        var fullFetch = token == nil
        do {
            changes = try await database.allRecordZoneChanges(inZoneWith: Self.zoneID, since: token)
        } catch let error as StratusError where error.code == .changeTokenExpired {
            changes = try await database.allRecordZoneChanges(inZoneWith: Self.zoneID, since: nil)
            fullFetch = true
        }
        // Each key's new value (nil: removed); keys whose record holds no valid value are skipped.
        var server: [String: ServerValue?] = [:]
        var skipped: Set<String> = []
        for (id, result) in changes.modificationResultsByID {
            guard case .success(let record) = result else { continue }
            if let value = serverValue(record) { server[id.recordName] = .some(value) } else { skipped.insert(id.recordName) }
        }
        for deletion in changes.deletions { server[deletion.recordID.recordName] = .some(nil) }
        // The server's values of refused keys that the feed did not carry.
        let missing = refused.filter { server[$0] == nil && !skipped.contains($0) }
        if !missing.isEmpty {
            let lookups = try await database.records(for: missing.map { RecordID(recordName: $0, zoneID: Self.zoneID) })
            for (id, result) in lookups {
                switch result {
                case .success(let record):
                    if let value = serverValue(record) { server[id.recordName] = .some(value) } else { skipped.insert(id.recordName) }
                case .failure: server[id.recordName] = .some(nil)
                }
            }
        }
        let initialSync = token == nil
        let (changed, quota) = try state.withLock { state -> ([String], [String]) in
            if fullFetch {
                // A full fetch lists live records only: local keys it lacks were removed elsewhere.
                for key in state.values.keys where server[key] == nil && !skipped.contains(key) && state.pending[key] == nil {
                    server[key] = .some(nil)
                }
            }
            var applied: [String: Data?] = [:]
            var changed: [String] = []
            var quota: [String] = []
            for (key, new) in server where state.pending[key] == nil {
                let value = new?.value
                if state.values[key] != value {
                    state.store(key: key, value: value, size: new?.data.count)
                    applied[key] = .some(new?.data)  // a removal is `.some(nil)`: assigning `nil` would drop the key from `applied`
                    if limits.contains(key) { quota.append(key) } else { changed.append(key) }
                } else if limits.contains(key) {
                    quota.append(key)
                }
            }
            try storage.applyServer(values: applied, meta: ["token": changes.changeToken.rawValue])
            state.token = changes.changeToken
            return (changed.sorted(), quota.sorted())
        }
        if !quota.isEmpty { announce(ExternalChange(reason: .quotaViolation, changedKeys: quota)) }
        if !changed.isEmpty { announce(ExternalChange(reason: initialSync ? .initialSync : .serverChange, changedKeys: changed)) }
    }

    /// A key's value as the server holds it: the stored bytes and what they decode to.
    struct ServerValue {
        var data: Data
        var value: Value
    }

    /// The value a record of the store's zone holds, checked; `nil` (logged) when it is not one.
    ///
    /// The server, or any client of the account, writes these records: a value that is not bytes,
    /// does not decode (or nests past the JSON decoder's depth limit), or breaks the per-key limits
    /// is skipped — the local value stays — instead of failing every sync from then on.
    func serverValue(_ record: StratusClient.Record) -> ServerValue? {
        let key = record.recordID.recordName
        let shown = String(key.unicodeScalars.prefix(80).map { $0.properties.generalCategory == .control ? "?" : Character($0) })
        guard case .bytes(let data)? = record.fields[Self.valueField] else {
            configuration.logger.warning("key-value store: ignoring '\(shown)' from the server: its value is not bytes")
            return nil
        }
        guard key.utf8.count <= Limits.maximumKeyBytes, data.count <= Limits.maximumValueBytes else {
            configuration.logger.warning("key-value store: ignoring '\(shown)' from the server: it breaks the key or value size limit")
            return nil
        }
        do {
            return ServerValue(data: data, value: try Value.decoded(data))
        } catch {
            configuration.logger.warning("key-value store: ignoring '\(shown)' from the server: its value does not decode: \(error)")
            return nil
        }
    }

    /// Sends an announcement to the streams and `NotificationCenter`.
    func announce(_ change: ExternalChange) {
        broadcaster.send(change)
        NotificationCenter.default.post(
            name: Self.didChangeExternallyNotification, object: self,
            userInfo: [Self.changeReasonKey: change.reason.rawValue, Self.changedKeysKey: change.changedKeys])
    }
}
