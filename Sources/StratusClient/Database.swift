import StratusLogging
public import StratusWire

/// One of a container's three databases: records, zones, queries and change feeds (`CKDatabase`).
///
/// ```swift
/// let database = container.privateCloudDatabase
/// var note = Record(recordType: "Note", zoneID: inbox)
/// note["title"] = "Groceries"
/// let saved = try await database.save(note)
/// let again = try await database.record(for: saved.recordID)
/// try await database.deleteRecord(withID: saved.recordID)
/// ```
public struct Database: Sendable {
    /// The most operations one `records/modify` or `zones/modify` request may carry (Apple's CloudKit Web Services Reference: “Limits and quotas”).
    public static let maximumOperationsPerRequest = 200
    /// The most records one response may carry, the default and largest `resultsLimit`.
    public static let maximumResultsPerResponse = 200

    /// Which database this is.
    public let scope: DatabaseScope

    let client: ServiceClient

    init(scope: DatabaseScope, client: ServiceClient) {
        self.scope = scope
        self.client = client
    }

    /// What ``modifyRecords(saving:deleting:savePolicy:atomically:)`` returns: a result per record.
    public struct ModifyResults: Sendable {
        /// The saved record, or why it was not saved, by record ID.
        public var saveResults: [RecordID: Result<Record, StratusError>]
        /// Whether each deletion succeeded, by record ID.
        public var deleteResults: [RecordID: Result<Void, StratusError>]
    }

    // MARK: Records

    /// Saves a record: creates it if new, else updates its changed keys if the server still has its change tag.
    ///
    /// - Parameter record: The record.
    /// - Returns: The record as saved, with its new change tag and server metadata.
    /// - Throws: ``StratusError``; ``StratusError/Code/serverRecordChanged`` (with the server, client and
    ///   ancestor records) when someone else changed it first.
    ///
    /// CloudKit reference: records/modify.
    @discardableResult
    public func save(_ record: Record) async throws -> Record {
        let results = try await modifyRecords(saving: [record], deleting: [], savePolicy: .ifServerRecordUnchanged, atomically: false)
        guard let result = results.saveResults[record.recordID] else {
            throw StratusError(.serverResponseLost, "the server did not answer for record '\(record.recordID.recordName)'")
        }
        return try result.get()
    }

    /// Fetches one record.
    ///
    /// - Parameters:
    ///   - recordID: The record's ID.
    ///   - desiredKeys: The fields to fetch; `nil` fetches all.
    /// - Returns: The record.
    /// - Throws: ``StratusError``; ``StratusError/Code/unknownItem`` when it does not exist.
    ///
    /// CloudKit reference: records/lookup.
    public func record(for recordID: RecordID, desiredKeys: [String]? = nil) async throws -> Record {
        let results = try await records(for: [recordID], desiredKeys: desiredKeys)
        guard let result = results[recordID] else {
            throw StratusError(.serverResponseLost, "the server did not answer for record '\(recordID.recordName)'")
        }
        return try result.get()
    }

    /// Fetches records by ID, from any number of zones.
    ///
    /// - Parameters:
    ///   - recordIDs: The records' IDs.
    ///   - desiredKeys: The fields to fetch; `nil` fetches all.
    /// - Returns: Each record or its error (``StratusError/Code/unknownItem`` for missing ones), by ID.
    /// - Throws: ``StratusError`` when a whole request fails.
    ///
    /// CloudKit reference: records/lookup.
    public func records(for recordIDs: [RecordID], desiredKeys: [String]? = nil) async throws -> [RecordID: Result<Record, StratusError>] {
        var results: [RecordID: Result<Record, StratusError>] = [:]
        for (zoneID, ids) in Self.grouped(recordIDs, by: \.zoneID) {
            for chunk in Self.chunks(of: ids, size: Self.maximumResultsPerResponse) {
                let request = RecordsLookup.Request(
                    records: chunk.map { RecordsLookup.Item(recordName: $0.recordName) }, zoneID: Self.wireZone(zoneID),
                    desiredKeys: desiredKeys)
                let response = try await client.send(RecordsLookup.self, request, database: scope, idempotent: true)
                guard response.records.count == chunk.count else {
                    throw StratusError(
                        .serverResponseLost, "records/lookup answered \(response.records.count) results for \(chunk.count) records")
                }
                for (id, result) in zip(chunk, response.records) {
                    results[id] = Self.recordResult(result, recordID: id, clientRecord: nil)
                }
            }
        }
        return results
    }

    /// Deletes a record whatever its change tag.
    ///
    /// - Parameter recordID: The record's ID.
    /// - Returns: The deleted record's ID.
    /// - Throws: ``StratusError``.
    ///
    /// CloudKit reference: records/modify (`forceDelete`).
    @discardableResult
    public func deleteRecord(withID recordID: RecordID) async throws -> RecordID {
        let results = try await modifyRecords(saving: [], deleting: [recordID], savePolicy: .ifServerRecordUnchanged, atomically: false)
        guard let result = results.deleteResults[recordID] else {
            throw StratusError(.serverResponseLost, "the server did not answer for record '\(recordID.recordName)'")
        }
        try result.get()
        return recordID
    }

    /// Saves and deletes records in one call, with a result per record.
    ///
    /// Records are grouped by zone (one `records/modify` per zone, at most 200 operations each).
    /// A request the server rejects as too large is split in half and retried, unless it must be
    /// atomic (custom zone, `atomically: true`): then every item fails with
    /// ``StratusError/Code/limitExceeded``.
    ///
    /// - Parameters:
    ///   - recordsToSave: Records to create or update.
    ///   - recordIDsToDelete: Records to delete (whatever their change tag).
    ///   - savePolicy: How saves treat the server's copy.
    ///   - atomically: All-or-nothing per zone (honoured by custom zones only).
    /// - Returns: A result per record.
    /// - Throws: ``StratusError`` when a whole request fails (authentication, network, zone missing…).
    ///
    /// CloudKit reference: records/modify.
    public func modifyRecords(
        saving recordsToSave: [Record], deleting recordIDsToDelete: [RecordID],
        savePolicy: SavePolicy = .ifServerRecordUnchanged, atomically: Bool = true
    ) async throws -> ModifyResults {
        let recordsToSave = try await AssetUploader(client: client, scope: scope).uploadingAssets(of: recordsToSave)
        var items: [ModifyItem] = recordsToSave.map { .save($0, $0.saveOperation(policy: savePolicy)) }
        items += recordIDsToDelete.map { .delete($0, .forceDelete(RecordID(recordName: $0.recordName))) }
        var results = ModifyResults(saveResults: [:], deleteResults: [:])
        for (zoneID, zoneItems) in Self.grouped(items, by: \.recordID.zoneID) {
            let canSplit = !atomically || zoneID.isDefaultZone
            for chunk in Self.chunks(of: zoneItems, size: canSplit ? Self.maximumOperationsPerRequest : zoneItems.count) {
                try await modify(chunk, zoneID: zoneID, atomically: atomically, canSplit: canSplit, into: &results)
            }
        }
        return results
    }

    /// Sends one `records/modify`, halving it while the server says it is too large.
    private func modify(
        _ items: [ModifyItem], zoneID: ZoneID, atomically: Bool, canSplit: Bool, into results: inout ModifyResults
    ) async throws {
        guard !items.isEmpty else { return }
        let request = RecordsModify.Request(
            operations: items.map(\.operation), zoneID: Self.wireZone(zoneID), atomic: atomically ? nil : false)
        let response: RecordsModify.Response
        do {
            guard items.count <= Self.maximumOperationsPerRequest || canSplit else {
                throw StratusError(
                    .limitExceeded,
                    "an atomic batch may carry at most \(Self.maximumOperationsPerRequest) operations; this one has \(items.count)")
            }
            response = try await client.send(RecordsModify.self, request, database: scope, idempotent: false)
        } catch let error as StratusError where error.code == .limitExceeded {
            guard canSplit, items.count > 1 else {
                for item in items { item.record(.failure(error), into: &results) }
                return
            }
            client.configuration.logger.info("records/modify too large; splitting \(items.count) operations in half")
            let middle = items.count / 2
            try await modify(Array(items[..<middle]), zoneID: zoneID, atomically: atomically, canSplit: canSplit, into: &results)
            try await modify(Array(items[middle...]), zoneID: zoneID, atomically: atomically, canSplit: canSplit, into: &results)
            return
        }
        guard response.records.count == items.count else {
            throw StratusError(
                .serverResponseLost, "records/modify answered \(response.records.count) results for \(items.count) operations")
        }
        for (item, result) in zip(items, response.records) {
            switch item {
            case .save(let record, _):
                results.saveResults[record.recordID] = Self.recordResult(result, recordID: record.recordID, clientRecord: record)
            case .delete(let id, _):
                switch result {
                case .record: results.deleteResults[id] = .success(())
                case .error(let error): results.deleteResults[id] = .failure(StratusError(error, recordID: id))
                }
            }
        }
    }

    // MARK: Helpers

    /// The `zoneID` key of a request: omitted for the default zone, as Apple's samples do.
    static func wireZone(_ zoneID: ZoneID) -> ZoneID? {
        zoneID == .defaultZone ? nil : zoneID
    }

    /// A record entry of a response as a client result.
    static func recordResult(_ result: RecordResult, recordID: RecordID, clientRecord: Record?) -> Result<Record, StratusError> {
        switch result {
        case .record(let wire):
            let type = wire.recordType ?? clientRecord?.recordType
            guard let type else {
                return .failure(StratusError(.serverResponseLost, "the server sent record '\(recordID.recordName)' without a recordType"))
            }
            return .success(Record(wire: wire, recordID: recordID, recordType: type))
        case .error(let error):
            return .failure(StratusError(error, recordID: recordID, clientRecord: clientRecord))
        }
    }

    /// Groups items by a key, keeping first-seen order of keys and items.
    static func grouped<Item, Key: Hashable>(_ items: [Item], by key: (Item) -> Key) -> [(Key, [Item])] {
        var order: [Key] = []
        var groups: [Key: [Item]] = [:]
        for item in items {
            let itemKey = key(item)
            if groups[itemKey] == nil { order.append(itemKey) }
            groups[itemKey, default: []].append(item)
        }
        return order.map { ($0, groups[$0] ?? []) }
    }

    /// Splits items into runs of at most `size`.
    static func chunks<Item>(of items: [Item], size: Int) -> [[Item]] {
        guard size > 0, items.count > size else { return items.isEmpty ? [] : [items] }
        return stride(from: 0, to: items.count, by: size).map { Array(items[$0..<min($0 + size, items.count)]) }
    }
}

/// One operation of a `records/modify` batch with what it is about.
enum ModifyItem: Sendable {
    case save(Record, RecordOperation)
    case delete(RecordID, RecordOperation)

    var recordID: RecordID {
        switch self {
        case .save(let record, _): record.recordID
        case .delete(let id, _): id
        }
    }

    var operation: RecordOperation {
        switch self {
        case .save(_, let operation), .delete(_, let operation): operation
        }
    }

    func record(_ failure: Result<Never, StratusError>, into results: inout Database.ModifyResults) {
        guard case .failure(let error) = failure else { return }
        var itemError = error
        itemError.recordID = recordID
        switch self {
        case .save(let record, _):
            itemError.clientRecord = record
            results.saveResults[record.recordID] = .failure(itemError)
        case .delete(let id, _):
            results.deleteResults[id] = .failure(itemError)
        }
    }
}
