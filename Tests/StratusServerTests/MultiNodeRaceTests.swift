import Foundation
import StratusTesting
import StratusWire
import Testing

/// Several server nodes on one PostgreSQL database: change tags hold across nodes, and the
/// change feed read through any node is complete and in order.
@Suite(.enabled(if: PostgresTestDatabase.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"))
struct MultiNodeRaceTests {
    @Test func twentyClientsOnThreeNodesWithOneChangeTagHaveExactlyOneWinner() async throws {
        try await withPostgresNodes(3) { clients in
            try await clients[0].createZone("Race")
            let created = try await clients[0].modify([WireJSON.create("shared", fields: #"{"writer":{"value":-1}}"#)], zone: "Race")
            let tag = try #require(created.first?.asRecord?.recordChangeTag).rawValue
            let results = try await LoadScenarios.raceUpdates(of: "shared", tag: tag, zone: "Race", count: 20, clients: clients)
            #expect(results.count == 20)
            #expect(results.filter { $0.asRecord != nil }.count == 1)
            #expect(results.compactMap(\.asError).allSatisfy { $0.serverErrorCode == .conflict })
        }
    }

    @Test func concurrentCreatesThroughEveryNodeLeaveACompleteOrderedFeed() async throws {
        try await withPostgresNodes(3) { clients in
            try await clients[0].createZone("Feed")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<9 {
                    group.addTask {
                        for index in 0..<10 {
                            let results = try await clients[writer % clients.count].modify(
                                [WireJSON.create("w\(writer)-\(index)")], zone: "Feed"
                            )
                            #expect(results.first?.asRecord != nil)
                        }
                    }
                }
                try await group.waitForAll()
            }
            for client in clients {
                // Paged through each node: every record once, nothing skipped.
                let names = try await client.allChanges(zone: "Feed", limit: 7).records.compactMap(\.recordName)
                #expect(names.count == 90)
                #expect(Set(names).count == 90)
            }
        }
    }
}
