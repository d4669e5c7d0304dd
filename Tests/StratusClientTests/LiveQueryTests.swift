import Foundation
import StratusClient
import StratusWire
import Testing

/// Type-only queries against the real server (filters and sorts are live-tested once the server has them).
@Suite struct LiveQueryTests {
    /// A query pages with a cursor, and the AsyncSequence walks every page.
    @Test func queryPagesWithCursorAndAsyncSequence() async throws {
        try await LiveFixture.run { fixture in
            let db = fixture.database
            let zone = try await db.save(RecordZone(zoneName: "Notes"))
            let records = (0..<25).map { index in
                var record = Record(recordType: "Note", recordID: RecordID(recordName: String(format: "n%02d", index), zoneID: zone.zoneID))
                record["index"] = index
                return record
            }
            let saved = try await db.modifyRecords(saving: records, deleting: [])
            #expect(saved.saveResults.values.allSatisfy { (try? $0.get()) != nil })

            let query = Query(recordType: "Note")
            let first = try await db.records(matching: query, inZoneWith: zone.zoneID, resultsLimit: 10)
            #expect(first.matchResults.count == 10)
            let cursor = try #require(first.queryCursor)
            let second = try await db.records(continuingMatchFrom: cursor, resultsLimit: 10)
            #expect(second.matchResults.count == 10)
            let third = try await db.records(continuingMatchFrom: try #require(second.queryCursor), resultsLimit: 10)
            #expect(third.matchResults.count == 5)
            #expect(third.queryCursor == nil)

            var names: [String] = []
            for try await record in db.allRecords(matching: query, inZoneWith: zone.zoneID, pageSize: 7) {
                names.append(record.recordID.recordName)
                #expect(record.recordID.zoneID.zoneName == "Notes")
            }
            #expect(Set(names) == Set(records.map(\.recordID.recordName)))
            #expect(names.count == 25)

            let projected = try await db.records(matching: query, inZoneWith: zone.zoneID, desiredKeys: [], resultsLimit: 1)
            #expect(try projected.records().first?.allKeys() == [])
        }
    }

    /// Until the server supports filters, it answers them with invalidArguments, which the SDK surfaces.
    @Test func unsupportedQueryIsReportedAsInvalidArguments() async throws {
        try await LiveFixture.run { fixture in
            let error = try await #require(throws: StratusError.self) {
                try await fixture.database.records(matching: Query(recordType: "NoSuchType"))
            }
            #expect(error.code == .invalidArguments)
            #expect(error.httpStatus == 400)
            #expect(error.uuid != nil)
        }
    }
}
