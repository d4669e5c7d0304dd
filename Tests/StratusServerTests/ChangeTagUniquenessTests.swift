import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// A change tag names one version of a record, also across a zone deleted and made again, whose
/// change sequence starts over (issue 17: found by the sync simulator, seed 56).
@Suite struct ChangeTagUniquenessTests {
    @Test(arguments: RecordStoreBackend.allCases) func aTagFromAnEarlierZoneIsAConflict(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.createZones(["Z"])
            let old = try await server.create("n1", fields: ["title": .string("before")], zone: "Z")
            let oldTag = try #require(old.recordChangeTag)
            _ = try await server.send("zones/modify", ZonesModify.Request(operations: [.delete(ZoneID(zoneName: "Z"))]), as: ZonesModify.Response.self)
            try await server.createZones(["Z"])
            server.advanceClock(by: .seconds(1))
            let new = try await server.create("n1", fields: ["title": .string("made again")], zone: "Z")
            #expect(new.recordChangeTag != oldTag, "the first write of the new zone has the old zone's first sequence")

            let stale = try await server.modify([.update(Record(recordName: "n1", fields: ["title": .string("stale")]), expecting: oldTag)], zone: "Z")
            #expect(stale.first?.code == .conflict, "an update with the earlier zone's tag must not pass the check")
            #expect(try await server.lookup(["n1"], zone: "Z").first?.record?.fields?["title"] == .string("made again"))
        }
    }
}
