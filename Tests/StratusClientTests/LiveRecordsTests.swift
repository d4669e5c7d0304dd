import Foundation
import StratusClient
import StratusWire
import Testing

/// Records API against the real server on loopback.
@Suite struct LiveRecordsTests {
    /// save → record(for:) → deleteRecord round-trips every field and the server metadata.
    @Test func saveFetchAndDeleteRoundTrip() async throws {
        try await LiveFixture.run { fixture in
            let db = fixture.database
            var note = Record(recordType: "Note", recordID: RecordID(recordName: "n1"))
            note["title"] = "Groceries"
            note["rank"] = 3
            note["ratio"] = 2.0
            note["due"] = Date(timeIntervalSince1970: 1_750_000_000.5)
            note["tags"] = ["home", "weekly"]
            note["blob"] = Data([0, 1, 2])
            note["place"] = Location(latitude: 1.5, longitude: 2.5)
            let saved = try await db.save(note)
            #expect(saved.recordChangeTag != nil)
            #expect(saved.creationDate != nil)
            #expect(saved.creatorUserRecordName != nil)
            #expect(saved.changedKeys().isEmpty)

            let fetched = try await db.record(for: note.recordID)
            #expect(fetched["title"] == "Groceries")
            #expect(fetched["rank"] == 3)
            #expect(fetched["ratio"] == 2.0)
            #expect(fetched["due"] == Date(timeIntervalSince1970: 1_750_000_000.5))
            #expect(fetched["tags"] == ["home", "weekly"])
            #expect(fetched["blob"] == Data([0, 1, 2]))
            #expect(fetched["place"] == Location(latitude: 1.5, longitude: 2.5))
            #expect(fetched.recordChangeTag == saved.recordChangeTag)

            let partial = try await db.record(for: note.recordID, desiredKeys: ["title"])
            #expect(partial.allKeys() == ["title"])

            try await db.deleteRecord(withID: note.recordID)
            await #expect(throws: StratusError.self) { try await db.record(for: note.recordID) }
            do {
                _ = try await db.record(for: note.recordID)
            } catch let error as StratusError {
                #expect(error.code == .unknownItem)
                #expect(error.serverErrorCode == .notFound)
            }
        }
    }

    /// Saving a stale copy fails with serverRecordChanged carrying the server, client and ancestor records.
    @Test func staleSaveReportsServerRecordChangedWithAllThreeRecords() async throws {
        try await LiveFixture.run { fixture in
            let db = fixture.database
            var note = Record(recordType: "Note", recordID: RecordID(recordName: "c1"))
            note["title"] = "v1"
            try await db.save(note)
            var first = try await db.record(for: note.recordID)
            var second = try await db.record(for: note.recordID)
            first["title"] = "from first"
            try await db.save(first)
            second["title"] = "from second"
            let error = try await #require(throws: StratusError.self) { try await db.save(second) }
            #expect(error.code == .serverRecordChanged)
            #expect(error.serverErrorCode == .conflict)
            #expect(error.serverRecord?["title"] == "from first")
            #expect(error.clientRecord?["title"] == "from second")
            #expect(error.ancestorRecord?["title"] == "v1")

            // Merging onto the server record and saving again succeeds.
            var merged = try #require(error.serverRecord)
            merged["title"] = "merged"
            let saved = try await db.save(merged)
            #expect(saved["title"] == "merged")
        }
    }

    /// Creating a record whose name exists is reported as serverRecordChanged (EXISTS) with the server record.
    @Test func creatingAnExistingRecordReportsServerRecordChanged() async throws {
        try await LiveFixture.run { fixture in
            var a = Record(recordType: "Note", recordID: RecordID(recordName: "dup"))
            a["title"] = "a"
            try await fixture.database.save(a)
            var b = Record(recordType: "Note", recordID: RecordID(recordName: "dup"))
            b["title"] = "b"
            let error = try await #require(throws: StratusError.self) { try await fixture.database.save(b) }
            #expect(error.code == .serverRecordChanged)
            #expect(error.serverErrorCode == .exists)
            #expect(error.serverRecord?["title"] == "a")
        }
    }

    /// modifyRecords returns a result per record; the three save policies behave as documented.
    @Test func modifyRecordsHonoursSavePolicies() async throws {
        try await LiveFixture.run { fixture in
            let db = fixture.database
            let zone = try await db.save(RecordZone(zoneName: "Work"))
            let id = RecordID(recordName: "p1", zoneID: zone.zoneID)
            var original = Record(recordType: "Task", recordID: id)
            original["title"] = "t"
            original["body"] = "b"
            try await db.save(original)
            var stale = try await db.record(for: id)
            var other = try await db.record(for: id)
            other["body"] = "other"
            try await db.save(other)

            // changedKeys: forceUpdate of only the title; the other writer's body survives.
            stale["title"] = "T"
            let changed = try await db.modifyRecords(saving: [stale], deleting: [], savePolicy: .changedKeys)
            let afterChanged = try #require(try changed.saveResults[id]?.get())
            #expect(afterChanged["title"] == "T")
            #expect(afterChanged["body"] == "other")

            // ifServerRecordUnchanged with the stale tag fails.
            let unchanged = try await db.modifyRecords(saving: [stale], deleting: [], savePolicy: .ifServerRecordUnchanged)
            #expect(throws: StratusError.self) { try unchanged.saveResults[id]?.get() }

            // allKeys: forceReplace, the body is put back to the stale copy's value.
            let all = try await db.modifyRecords(saving: [stale], deleting: [], savePolicy: .allKeys)
            let replaced = try #require(try all.saveResults[id]?.get())
            #expect(replaced["body"] == "b")

            // Saves and deletes across zones in one call.
            var fresh = Record(recordType: "Task", recordID: RecordID(recordName: "p2"))
            fresh["title"] = "default zone"
            let mixed = try await db.modifyRecords(saving: [fresh], deleting: [id])
            #expect(try mixed.saveResults[fresh.recordID]?.get()["title"] == "default zone")
            #expect(throws: Never.self) { try mixed.deleteResults[id]?.get() }
            let lookups = try await db.records(for: [id, fresh.recordID, RecordID(recordName: "nope")])
            #expect(lookups.count == 3)
            #expect(throws: StratusError.self) { try lookups[id]?.get() }
            #expect(try lookups[fresh.recordID]?.get()["title"] == "default zone")
        }
    }

    /// An atomic batch in a custom zone fails as a whole: the culprit has its own code, the rest batchRequestFailed.
    @Test func atomicBatchFailureMarksOtherItemsBatchRequestFailed() async throws {
        try await LiveFixture.run { fixture in
            let db = fixture.database
            let zone = try await db.save(RecordZone(zoneName: "Atomic"))
            var existing = Record(recordType: "Task", recordID: RecordID(recordName: "a1", zoneID: zone.zoneID))
            existing["title"] = "x"
            try await db.save(existing)
            var duplicate = Record(recordType: "Task", recordID: existing.recordID)
            duplicate["title"] = "dup"
            var good = Record(recordType: "Task", recordID: RecordID(recordName: "a2", zoneID: zone.zoneID))
            good["title"] = "good"
            let results = try await db.modifyRecords(saving: [good, duplicate], deleting: [], atomically: true)
            let goodError = try #require(throws: StratusError.self) { try results.saveResults[good.recordID]?.get() }
            #expect(goodError.code == .batchRequestFailed)
            let dupError = try #require(throws: StratusError.self) { try results.saveResults[duplicate.recordID]?.get() }
            #expect(dupError.code == .serverRecordChanged)
        }
    }

    /// Writing to a zone that does not exist surfaces zoneNotFound.
    @Test func savingIntoAMissingZoneFailsWithZoneNotFound() async throws {
        try await LiveFixture.run { fixture in
            var record = Record(recordType: "Note", zoneID: ZoneID(zoneName: "Nowhere"))
            record["title"] = "x"
            let error = try await #require(throws: StratusError.self) { try await fixture.database.save(record) }
            #expect(error.code == .zoneNotFound)
        }
    }
}
