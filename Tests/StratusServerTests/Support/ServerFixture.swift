import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Test helpers over a live ``TestCloudKitServer``.
extension TestCloudKitServer {
    /// Sends `records/modify` and returns the per-operation results.
    func modify(
        _ operations: [RecordOperation], zone: String? = nil, atomic: Bool? = nil, desiredKeys: [String]? = nil,
        database: String = "private", environment: String = "development"
    ) async throws -> [RecordResult] {
        let request = RecordsModify.Request(
            operations: operations, zoneID: zone.map { ZoneID(zoneName: $0) }, atomic: atomic, desiredKeys: desiredKeys
        )
        return try await send("records/modify", request, as: RecordsModify.Response.self, database: database, environment: environment).records
    }

    /// Saves one record with `create` and returns it, failing the test on an error.
    @discardableResult
    func create(_ name: String, type: String = "Note", fields: [String: FieldValue], zone: String? = nil) async throws -> Record {
        let results = try await modify([.create(Record(recordName: name, recordType: type, fields: fields))], zone: zone)
        return try #require(results.first?.record, "create \(name) failed: \(String(describing: results.first?.error))")
    }

    /// Looks records up by name.
    func lookup(_ names: [String], zone: String? = nil, environment: String = "development") async throws -> [RecordResult] {
        let request = RecordsLookup.Request(records: names.map { RecordsLookup.Item(recordName: $0) }, zoneID: zone.map { ZoneID(zoneName: $0) })
        return try await send("records/lookup", request, as: RecordsLookup.Response.self, environment: environment).records
    }

    /// Creates custom zones.
    func createZones(_ names: [String]) async throws {
        let request = ZonesModify.Request(operations: names.map { .create(ZoneID(zoneName: $0)) })
        let results = try await send("zones/modify", request, as: ZonesModify.Response.self).zones
        for result in results where result.error != nil {
            Issue.record("zone creation failed: \(String(describing: result.error))")
        }
    }

    /// Fetches one page of `records/changes`.
    func changes(zone: String, token: SyncToken? = nil, limit: Int? = nil) async throws -> RecordsChanges.Response {
        try await send(
            "records/changes", RecordsChanges.Request(zoneID: ZoneID(zoneName: zone), syncToken: token, resultsLimit: limit), as: RecordsChanges.Response.self)
    }

    /// Follows `records/changes` until `moreComing` is false; returns every entry and the final token.
    func allChanges(zone: String, from token: SyncToken? = nil, pageSize: Int = 200) async throws -> (records: [Record], token: SyncToken) {
        var token = token
        var records: [Record] = []
        while true {
            let page = try await changes(zone: zone, token: token, limit: pageSize)
            records += page.records.compactMap(\.record)
            token = page.syncToken
            if !page.moreComing { return (records, page.syncToken) }
        }
    }

    /// POSTs raw JSON and parses the reply as a JSON object.
    func postJSON(
        _ operation: String, _ body: String, database: String = "private", environment: String = "development",
        container: String = TestCloudKitServer.container
    ) async throws -> (status: Int, json: JSONValue) {
        let (status, data) = try await post(operation, body, database: database, environment: environment, container: container)
        return (status, try JSONValue(parsing: data))
    }
}

extension JSONValue {
    /// The string at `key` of an object, if any.
    func string(_ key: String) -> String? {
        if case .object(let object) = self, case .string(let value)? = object[key] { return value }
        return nil
    }
}

extension RecordResult {
    /// The error code of a failed item, or `nil` for a record.
    var code: ServerErrorCode? { error?.serverErrorCode }
}
