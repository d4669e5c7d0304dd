import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Rate limits (THROTTLED) and storage quotas (QUOTA_EXCEEDED) per container.
@Suite struct QuotaTests {
    @Test(arguments: RecordStoreBackend.allCases) func fortyOneRequestsInOneSecondAgainstFortyPerSecondAreThrottled(_ backend: RecordStoreBackend) async throws
    {
        let clock = ManualClock()
        let other = "iCloud.com.example.Other"
        let server = try await TestCloudKitServer.start(backend: backend, containers: [TestCloudKitServer.container, other]) { configuration in
            configuration.quotas.defaults = QuotaLimits(requestsPerSecond: 40, burst: 0)
            configuration.quotas.now = clock.reader
        }
        try await Self.run(server) {
            var statuses: [Int] = []
            for index in 0..<41 {
                if index == 20 { clock.advance(by: 10) }  // all 41 within one second
                statuses.append(try await server.exchange("zones/list", method: "GET").status)
            }
            #expect(statuses.prefix(40).allSatisfy { $0 == 200 })
            let throttled = try await server.exchange("zones/list", method: "GET")
            #expect(statuses.last == 429)
            #expect(throttled.status == 429)
            #expect(throttled.serverErrorCode == "THROTTLED")
            guard case .integer(let retryAfter)? = throttled.json["retryAfter"] else {
                Issue.record("no retryAfter in \(throttled.text)")
                return
            }
            #expect((1...2).contains(retryAfter))
            #expect(throttled.headers["retry-after"] == String(retryAfter))
            // Another container has its own budget.
            #expect(try await server.exchange("zones/list", method: "GET", container: other).status == 200)
            // After retryAfter seconds the container may call again.
            clock.advance(by: retryAfter * 1000)
            #expect(try await server.exchange("zones/list", method: "GET").status == 200)
        }
    }

    @Test(arguments: RecordStoreBackend.allCases) func aPublicWritePastTheQuotaIsRefusedWhole(_ backend: RecordStoreBackend) async throws {
        let server = try await TestCloudKitServer.start(backend: backend) { configuration in
            configuration.quotas.defaults.publicRecordBytes = 3_000
        }
        try await Self.run(server) {
            let big = String(repeating: "x", count: 900)
            let batch = #"{"operations":[\#((1...3).map { Self.create("p\($0)", title: big) }.joined(separator: ","))]}"#
            let refused = try await server.exchange("records/modify", batch, database: "public")
            #expect(refused.status == 413)
            #expect(refused.serverErrorCode == "QUOTA_EXCEEDED")
            let lookup = try await server.exchange(
                "records/lookup", #"{"records":[{"recordName":"p1"},{"recordName":"p2"},{"recordName":"p3"}]}"#, database: "public")
            #expect(lookup.itemCodes() == ["NOT_FOUND", "NOT_FOUND", "NOT_FOUND"])

            // Two fit; a third does not; deleting one makes room again.
            let two = #"{"operations":[\#(Self.create("p1", title: big)),\#(Self.create("p2", title: big))]}"#
            #expect(try await server.exchange("records/modify", two, database: "public").itemCodes() == [nil, nil])
            let third = #"{"operations":[\#(Self.create("p3", title: big))]}"#
            #expect(try await server.exchange("records/modify", third, database: "public").serverErrorCode == "QUOTA_EXCEEDED")
            let delete = #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"p1"}}]}"#
            #expect(try await server.exchange("records/modify", delete, database: "public").itemCodes() == [nil])
            #expect(try await server.exchange("records/modify", third, database: "public").itemCodes() == [nil])
        }
    }

    /// Runs `body`, then stops `server` whether it threw or not.
    static func run(_ server: TestCloudKitServer, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test(arguments: RecordStoreBackend.allCases) func aPrivateWritePastTheUsersQuotaLeavesNoPartialData(_ backend: RecordStoreBackend) async throws {
        try await withAuthServer(backend: backend, configure: { $0.quotas.defaults.privateBytesPerUser = 2_000 }) { server in
            let a = try await server.signedInUser("a@example.com")
            let b = try await server.signedInUser("b@example.com")
            #expect(try await server.exchange("zones/modify", Body.createZone("Notes"), query: a.query).itemCodes("zones") == [nil])
            let big = String(repeating: "y", count: 700)
            let batch = #"{"zoneID":{"zoneName":"Notes"},"operations":[\#((1...3).map { Self.create("n\($0)", title: big) }.joined(separator: ","))]}"#
            let refused = try await server.exchange("records/modify", batch, query: a.query)
            #expect(refused.status == 413)
            #expect(refused.serverErrorCode == "QUOTA_EXCEEDED")
            let changes = try await server.exchange("records/changes", #"{"zoneID":{"zoneName":"Notes"}}"#, query: a.query)
            #expect(changes.status == 200)
            #expect(changes.strings("records", "recordName").isEmpty)
            // The quota is per user: B still has all of it.
            let bBatch = #"{"operations":[\#(Self.create("n1", title: big)),\#(Self.create("n2", title: big))]}"#
            #expect(try await server.exchange("records/modify", bBatch, query: b.query).itemCodes() == [nil, nil])
        }
    }

    static func create(_ name: String, title: String) -> String {
        #"{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Note","fields":{"title":{"value":"\#(title)","type":"STRING"}}}}"#
    }
}
