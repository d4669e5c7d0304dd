import Foundation
import StratusClient
import StratusWire
import Testing

/// Zones and change feeds against the real server.
@Suite struct LiveZonesAndChangesTests {
    /// Zones can be created, fetched, listed and deleted.
    @Test func zoneLifecycle() async throws {
        try await LiveFixture.run { fixture in
            let db = fixture.database
            let saved = try await db.save(RecordZone(zoneName: "Inbox"))
            #expect(saved.currentSyncToken != nil)
            #expect(saved.supportsAtomicChanges == true)
            let fetched = try await db.recordZone(for: saved.zoneID)
            #expect(fetched.zoneID.zoneName == "Inbox")
            let all = try await db.allRecordZones()
            #expect(Set(all.map(\.zoneID.zoneName)).isSuperset(of: ["_defaultZone", "Inbox"]))

            let both = try await db.recordZones(for: [saved.zoneID, ZoneID(zoneName: "Missing")])
            let missing = try #require(throws: StratusError.self) { try both[ZoneID(zoneName: "Missing")]?.get() }
            #expect(missing.code == .zoneNotFound)

            try await db.deleteRecordZone(withID: saved.zoneID)
            let error = try await #require(throws: StratusError.self) { try await db.recordZone(for: saved.zoneID) }
            #expect(error.code == .zoneNotFound)
        }
    }

    /// recordZoneChanges reports modifications, deletions, a new token and moreComing; the looping
    /// convenience merges the pages.
    @Test func recordZoneChangesPagesAndMerges() async throws {
        try await LiveFixture.run { fixture in
            let db = fixture.database
            let zone = try await db.save(RecordZone(zoneName: "Feed"))
            let records = (0..<5).map { index in
                var record = Record(recordType: "Item", recordID: RecordID(recordName: "i\(index)", zoneID: zone.zoneID))
                record["n"] = index
                return record
            }
            _ = try await db.modifyRecords(saving: records, deleting: [])

            let firstPage = try await db.recordZoneChanges(inZoneWith: zone.zoneID, since: nil, resultsLimit: 2)
            #expect(firstPage.modificationResultsByID.count == 2)
            #expect(firstPage.moreComing)

            let everything = try await db.allRecordZoneChanges(inZoneWith: zone.zoneID, since: nil)
            #expect(everything.modificationResultsByID.count == 5)
            #expect(!everything.moreComing)
            let token = everything.changeToken

            var changed = try await db.record(for: records[0].recordID)
            changed["n"] = 100
            try await db.save(changed)
            try await db.deleteRecord(withID: records[1].recordID)

            let delta = try await db.allRecordZoneChanges(inZoneWith: zone.zoneID, since: token)
            #expect(try delta.modifications().map(\.recordID) == [records[0].recordID])
            #expect(try delta.modifications().first?["n"] == 100)
            #expect(delta.deletions.map(\.recordID) == [records[1].recordID])

            let quiet = try await db.recordZoneChanges(inZoneWith: zone.zoneID, since: delta.changeToken)
            #expect(quiet.modificationResultsByID.isEmpty && quiet.deletions.isEmpty && !quiet.moreComing)
        }
    }

    /// With a limit, the looping convenience stops at the first page that reaches it, says more is
    /// coming, and goes on from its token: 401 records in pages of 200, read 300 at a time.
    @Test func allRecordZoneChangesReadsAFeedInParts() async throws {
        try await LiveFixture.run { fixture in
            let db = fixture.database
            let zone = try await db.save(RecordZone(zoneName: "Parts"))
            let records = (0..<401).map { index in
                var record = Record(recordType: "Item", recordID: RecordID(recordName: "p\(index)", zoneID: zone.zoneID))
                record["n"] = index
                return record
            }
            for start in stride(from: 0, to: records.count, by: 200) {
                _ = try await db.modifyRecords(saving: Array(records[start..<min(start + 200, records.count)]), deleting: [])
            }
            var token: SyncToken? = nil
            var parts: [Int] = []
            var names: Set<String> = []
            var more = true
            while more {
                let part = try await db.allRecordZoneChanges(inZoneWith: zone.zoneID, since: token, limit: 300)
                parts.append(part.modificationResultsByID.count)
                names.formUnion(part.modificationResultsByID.keys.map(\.recordName))
                token = part.changeToken
                more = part.moreComing
            }
            #expect(parts == [400, 1])
            #expect(names.count == 401)
        }
    }

    /// A token the server does not accept is reported as changeTokenExpired.
    @Test func invalidSyncTokenIsChangeTokenExpired() async throws {
        try await LiveFixture.run { fixture in
            let zone = try await fixture.database.save(RecordZone(zoneName: "Feed"))
            let error = try await #require(throws: StratusError.self) {
                try await fixture.database.recordZoneChanges(inZoneWith: zone.zoneID, since: SyncToken("garbage"))
            }
            #expect(error.code == .changeTokenExpired)
            let dbError = try await #require(throws: StratusError.self) {
                try await fixture.database.databaseChanges(since: SyncToken("garbage"))
            }
            #expect(dbError.code == .changeTokenExpired)
        }
    }

    /// databaseChanges lists created and deleted zones since a token.
    @Test func databaseChangesReportZoneCreationsAndDeletions() async throws {
        try await LiveFixture.run { fixture in
            let db = fixture.database
            try await db.save(RecordZone(zoneName: "A"))
            let start = try await db.allDatabaseChanges(since: nil)
            #expect(start.modifications.map(\.zoneName).contains("A"))

            try await db.save(RecordZone(zoneName: "B"))
            try await db.deleteRecordZone(withID: ZoneID(zoneName: "A"))
            let delta = try await db.allDatabaseChanges(since: start.changeToken)
            #expect(delta.modifications.map(\.zoneName) == ["B"])
            #expect(delta.deletions.map(\.zoneName) == ["A"])
            #expect(!delta.moreComing)
        }
    }
}
