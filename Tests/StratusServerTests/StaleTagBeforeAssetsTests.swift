import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// A save with a stale change tag is a conflict before its assets are checked (issue 22, #2).
///
/// A client that echoes the assets of the version it last saw (no receipt: the record held them) and
/// was beaten by another device's save must hear `CONFLICT` with the server's record — something it can
/// settle — not `BAD_REQUEST` "asset without a receipt", which it can only repeat at every sync.
@Suite struct StaleTagBeforeAssetsTests {
    @Test(arguments: RecordStoreBackend.allCases) func aStaleEchoOfAssetsIsAConflict(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let first = try await AssetTests.upload(AssetTests.bytes(100, seed: 1), to: server, record: "doc")
            let second = try await AssetTests.upload(AssetTests.bytes(100, seed: 2), to: server, record: "doc")
            let created = try await server.modify([.create(Record(recordName: "doc", recordType: "Photo", fields: ["image": .asset(first)]))])
            let base = try #require(created.first?.record)
            let tag = try #require(base.recordChangeTag)
            // Another device replaces the asset.
            let replaced = try await server.modify([.update(Record(recordName: "doc", fields: ["image": .asset(second)]), expecting: tag)])
            #expect(replaced.first?.code == nil)
            // This device echoes the asset of the version it knew, with that version's tag.
            let echoed = try await server.modify([.update(Record(recordName: "doc", fields: base.fields), expecting: tag)])
            #expect(echoed.first?.code == .conflict)
            #expect(echoed.first?.error?.serverRecord?.recordChangeTag == replaced.first?.record?.recordChangeTag)
        }
    }
}
