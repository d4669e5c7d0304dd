import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// A test server with helpers to save records and run `records/query`.
struct QueryHarness {
    let server: TestCloudKitServer

    static func start(_ backend: RecordStoreBackend) async throws -> QueryHarness {
        QueryHarness(server: try await TestCloudKitServer.start(backend: backend))
    }

    func stop() async { await server.stop() }

    /// Runs `body` against a fresh server (holding the ``Items`` when `seeded`) and stops it afterwards.
    static func with(_ backend: RecordStoreBackend, seeded: Bool = false, _ body: (QueryHarness) async throws -> Void) async throws {
        let harness = try await start(backend)
        do {
            if seeded {
                for record in Items.records { try await harness.save([record]) }
            }
            try await body(harness)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    /// Saves records (create or replace) in one request and returns the saved wire records.
    @discardableResult
    func save(_ records: [Record], zone: ZoneID? = nil, database: String = "private") async throws -> [Record] {
        let request = RecordsModify.Request(operations: records.map { RecordOperation.forceReplace($0) }, zoneID: zone, atomic: false)
        let response = try await server.send("records/modify", request, as: RecordsModify.Response.self, database: database)
        return try response.records.map { result in
            guard case .record(let record) = result else { throw QueryTestFailure(description: "save failed: \(result)") }
            return record
        }
    }

    /// Deletes records by name.
    func delete(_ names: [String], zone: ZoneID? = nil) async throws {
        let operations = names.map { RecordOperation.forceDelete(RecordID(recordName: $0, zoneID: zone ?? .defaultZone)) }
        _ = try await server.send("records/modify", RecordsModify.Request(operations: operations, zoneID: zone, atomic: false), as: RecordsModify.Response.self)
    }

    /// Creates custom zones in the private database.
    func createZones(_ names: [String]) async throws {
        let request = ZonesModify.Request(operations: names.map { ZoneOperation.create(ZoneID(zoneName: $0)) })
        _ = try await server.send("zones/modify", request, as: ZonesModify.Response.self)
    }

    /// One page of a query.
    func query(_ request: RecordsQuery.Request, database: String = "private") async throws -> RecordsQuery.Response {
        try await server.send("records/query", request, as: RecordsQuery.Response.self, database: database)
    }

    /// The names of one page, in order.
    func names(_ request: RecordsQuery.Request) async throws -> [String] {
        try await query(request).records.map(Self.name)
    }

    /// Every page of a query, following continuation markers.
    func allPages(_ request: RecordsQuery.Request, between: () async throws -> Void = {}) async throws -> [[String]] {
        var pages: [[String]] = []
        var request = request
        while true {
            let response = try await query(request)
            pages.append(response.records.map(Self.name))
            guard let marker = response.continuationMarker else { return pages }
            #expect(pages.count < 10_000, "the query never ended")
            request.continuationMarker = marker
            try await between()
        }
    }

    /// A query that must fail: its status, code and reason.
    func failure(
        _ body: String, database: String = "private", environment: String = "development"
    ) async throws -> (status: Int, code: ServerErrorCode, reason: String) {
        let (status, data) = try await server.post("records/query", body, database: database, environment: environment)
        let error = try WireCoding.decode(ErrorResponse.self, from: data)
        return (status, error.serverErrorCode, error.reason)
    }

    static func name(_ result: RecordResult) -> String {
        switch result {
        case .record(let record): record.recordName ?? "?"
        case .error(let error): "error:\(error.serverErrorCode.rawValue)"
        }
    }
}

extension RecordsQuery.Request {
    /// A request for `recordType` with filters and sorts written as wire JSON.
    static func json(_ recordType: String, filters: [String] = [], sorts: [String] = [], extra: String = "") throws -> RecordsQuery.Request {
        let body =
            #"{"query":{"recordType":"\#(recordType)","filterBy":[\#(filters.joined(separator: ","))],"sortBy":[\#(sorts.joined(separator: ","))]}\#(extra)}"#
        return try WireCoding.decode(RecordsQuery.Request.self, from: Data(body.utf8))
    }
}

/// Places used by NEAR and distance sorts.
enum Places {
    static let paris = Location(latitude: 48.8566, longitude: 2.3522)
    static let versailles = Location(latitude: 48.8049, longitude: 2.1204)
    static let london = Location(latitude: 51.5074, longitude: -0.1278)
    static let tokyo = Location(latitude: 35.6762, longitude: 139.6503)
}

/// The five `Item` records most query tests search.
///
/// | name | title | count | price | due | owner | place | tags | scores | data |
/// |---|---|---|---|---|---|---|---|---|---|
/// | i1 | Buy oat milk | 1 | 1.5 | 1000 | u1 | Paris | work, urgent | 1, 2 | 01 02 |
/// | i2 | Walk the dog | 2 | 2.5 | 2000 | u2 | London | home | 2, 3 | 03 |
/// | i3 | Milk run | 3 | 3.5 | 3000 | u1 | Versailles | work, home | 5 | — |
/// | i4 | Oatmeal recipe | 4 | 4.5 | 4000 | — | Tokyo | (empty) | — | — |
/// | i5 | — | 5 | — | — | — | — | — | — | — |
enum Items {
    static let records: [Record] = [
        item(
            "i1", title: "Buy oat milk", count: 1, price: 1.5, due: 1000, owner: "u1", place: Places.paris, tags: ["work", "urgent"], scores: [1, 2],
            data: Data([1, 2])),
        item("i2", title: "Walk the dog", count: 2, price: 2.5, due: 2000, owner: "u2", place: Places.london, tags: ["home"], scores: [2, 3], data: Data([3])),
        item("i3", title: "Milk run", count: 3, price: 3.5, due: 3000, owner: "u1", place: Places.versailles, tags: ["work", "home"], scores: [5]),
        item("i4", title: "Oatmeal recipe", count: 4, price: 4.5, due: 4000, place: Places.tokyo, tags: []),
        item("i5", count: 5),
    ]

    static func item(
        _ name: String, title: String? = nil, count: Int64, price: Double? = nil, due: Int64? = nil, owner: String? = nil,
        place: Location? = nil, tags: [String]? = nil, scores: [Int64]? = nil, data: Data? = nil
    ) -> Record {
        var fields: [String: FieldValue] = ["count": .int64(count)]
        fields["title"] = title.map { .string($0) }
        fields["price"] = price.map { .double($0) }
        fields["due"] = due.map { .timestamp(Timestamp(millisecondsSince1970: $0)) }
        fields["owner"] = owner.map { .reference(Reference(recordName: $0, action: ReferenceAction.none)) }
        fields["place"] = place.map { .location($0) }
        fields["tags"] = tags.map { .stringList($0) }
        fields["scores"] = scores.map { .int64List($0) }
        fields["data"] = data.map { .bytes($0) }
        return Record(recordName: name, recordType: "Item", fields: fields)
    }
}

/// A step of a query test that could not be carried out.
struct QueryTestFailure: Error, CustomStringConvertible {
    var description: String
}
