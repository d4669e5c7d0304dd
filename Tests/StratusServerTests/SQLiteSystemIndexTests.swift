import Foundation
import StratusServer
import StratusSQLite
import StratusTesting
import StratusWire
import Testing

/// System-field indexes exist only once a query has needed them, so plain writes never pay for them.
@Suite struct SQLiteSystemIndexTests {
    func indexNames(_ server: TestCloudKitServer) throws -> Set<String> {
        let db = try SQLiteConnection(path: server.directory.path("stratus.sqlite"), readOnly: true)
        defer { try? db.close() }
        return Set(try db.fetchAll(String.self, "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'records_by_%'"))
    }

    /// A sort by modification time creates its index on first use and returns the right order.
    @Test func firstQueryOnASystemFieldCreatesItsIndex() async throws {
        try await withServer(.sqlite) { server in
            try await server.create("a", fields: ["v": .int64(1)])
            try await server.create("b", fields: ["v": .int64(2)])
            #expect(try indexNames(server) == ["records_by_type"])
            let body = #"{"query":{"recordType":"Note","sortBy":[{"systemFieldName":"modifiedTimestamp","ascending":false}]}}"#
            let (status, data) = try await server.post("records/query", body)
            #expect(status == 200)
            #expect(try WireCoding.decode(RecordsQuery.Response.self, from: data).records.compactMap(\.record?.recordName) == ["b", "a"])
            #expect(try indexNames(server) == ["records_by_type", "records_by_modified"])
        }
    }
}
