import Foundation
import StratusPostgres
import StratusServer
import StratusServerPostgres
import StratusTesting
import StratusWire
import Testing

/// `changes/database` over the transaction-ID log (Documentation/0008, "The database change log
/// from transaction IDs"), through real servers: a client reads its own zone change at once even
/// while an older transaction runs, past the wait it is reported without the token passing it, and a
/// tail through one node while two nodes create zones gets every zone exactly once.
@Suite(.enabled(if: PostgresScratch.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"))
struct PostgresDatabaseFeedTests {
    static func createZones(_ names: [String], on server: TestCloudKitServer) async throws {
        let request = ZonesModify.Request(operations: names.map { ZoneOperation.create(ZoneID(zoneName: $0)) })
        _ = try await server.send("zones/modify", request, as: ZonesModify.Response.self)
    }

    static func changes(_ server: TestCloudKitServer, after token: SyncToken?, limit: Int? = nil) async throws -> DatabaseChanges.Response {
        try await server.send("changes/database", DatabaseChanges.Request(syncToken: token, resultsLimit: limit), as: DatabaseChanges.Response.self)
    }

    @Test func aClientReadsItsOwnZoneWhileAnOlderTransactionIsStillOpen() async throws {
        let server = try await TestCloudKitServer.start(backend: .postgres)
        let store = try #require(server.store as? PostgresRecordStore)
        try await Self.createZones(["Before"], on: server)
        let start = try await Self.changes(server, after: nil).syncToken
        // Any transaction with an ID older than the client's write holds the horizon back.
        let open = try PostgresConnection(url: store.url)
        try open.execute("BEGIN")
        _ = try open.queryFirst("SELECT pg_current_xact_id()")
        try await Self.createZones(["Mine"], on: server)
        let ending = Task {
            try await Task.sleep(nanoseconds: 300_000_000)
            try open.execute("COMMIT")
        }
        // The page waits for the older transaction to end rather than leave the zone out.
        let page = try await Self.changes(server, after: start)
        #expect(page.zones.compactMap(\.zone?.zoneID.zoneName) == ["Mine"])
        try await ending.value
        // Reported again at most (while other tests' transactions of the cluster hold it back), never lost.
        let again = try await Self.changes(server, after: page.syncToken)
        #expect(Set(again.zones.compactMap(\.zone?.zoneID.zoneName)).isSubset(of: ["Mine"]))
        await server.stop()
    }

    @Test func pastTheWaitAHeldBackZoneIsReportedWithoutTheTokenPassingIt() async throws {
        // A short wait, so that this test's open transaction holds other tests' feeds back briefly only.
        let server = try await TestCloudKitServer.start(backend: .postgres) { $0.limits.databaseFeedWait = .milliseconds(200) }
        let store = try #require(server.store as? PostgresRecordStore)
        let start = try await Self.changes(server, after: nil).syncToken
        let open = try PostgresConnection(url: store.url)
        try open.execute("BEGIN")
        _ = try open.queryFirst("SELECT pg_current_xact_id()")
        try await Self.createZones(["Mine"], on: server)
        // The older transaction outlasts the wait: the zone is reported, and again from the page's token.
        let first = try await Self.changes(server, after: start)
        #expect(first.zones.compactMap(\.zone?.zoneID.zoneName) == ["Mine"])
        #expect(!first.moreComing)
        let second = try await Self.changes(server, after: first.syncToken)
        #expect(second.zones.compactMap(\.zone?.zoneID.zoneName) == ["Mine"], "the token passed a zone that was not final")
        try open.execute("COMMIT")
        let settled = try await Self.changes(server, after: second.syncToken)
        #expect(settled.zones.compactMap(\.zone?.zoneID.zoneName) == ["Mine"])
        await server.stop()
    }

    @Test func aTailThroughOneNodeWhileTwoNodesCreateZonesGetsEachZoneOnce() async throws {
        let first = try await TestCloudKitServer.start(backend: .postgres)
        let second = try await TestCloudKitServer.startNode(sharingStoreOf: first)
        let writers = 6
        let zonesEach = 6
        let tail = Task {
            var names: [String] = []
            var token: SyncToken?
            while Set(names).count < writers * zonesEach {
                let page = try await Self.changes(second, after: token, limit: 3)
                names += page.zones.compactMap(\.zone?.zoneID.zoneName).filter { $0 != ZoneID.defaultZoneName }
                token = page.syncToken
                if !page.moreComing { try await Task.sleep(nanoseconds: 5_000_000) }
            }
            return names
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for index in 0..<zonesEach {
                        try await Self.createZones(["w\(writer)-\(index)"], on: writer % 2 == 0 ? first : second)
                    }
                }
            }
            try await group.waitForAll()
        }
        let names = try await tail.value
        let created = (0..<writers).flatMap { writer in (0..<zonesEach).map { "w\(writer)-\($0)" } }
        // Every zone, each once (the test servers wait up to 30 s for transactions holding zones back).
        #expect(names.sorted() == created.sorted())
        await second.stop()
        await first.stop()
    }
}
