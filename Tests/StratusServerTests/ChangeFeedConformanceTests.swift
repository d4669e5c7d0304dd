import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// Change feeds: `records/changes`, `changes/zone`, `zones/changes`, `changes/database` (Apple's CloudKit Web Services Reference: “Zones and change tracking”).
@Suite struct ChangeFeedConformanceTests {
    static let backends = RecordStoreBackend.allCases

    /// Without a token the feed returns every live record; the token after it returns only later changes,
    /// each record once in its latest state, deletions as tombstones.
    @Test(arguments: backends) func deltaReturnsEachChangedRecordOnceInItsLatestState(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.createZones(["Z"])
            for index in 0..<5 { try await server.create("r\(index)", fields: ["v": .int64(0)], zone: "Z") }
            let first = try await server.allChanges(zone: "Z")
            #expect(first.records.compactMap(\.recordName).sorted() == ["r0", "r1", "r2", "r3", "r4"])

            let zone = ZoneID(zoneName: "Z")
            _ = try await server.modify([.forceUpdate(Record(recordName: "r1", fields: ["v": .int64(1)]))], zone: "Z")
            _ = try await server.modify([.forceUpdate(Record(recordName: "r1", fields: ["v": .int64(2)]))], zone: "Z")
            _ = try await server.modify([.forceDelete(RecordID(recordName: "r2", zoneID: zone))], zone: "Z")
            try await server.create("r5", fields: ["v": .int64(5)], zone: "Z")

            let delta = try await server.allChanges(zone: "Z", from: first.token)
            #expect(delta.records.compactMap(\.recordName) == ["r1", "r2", "r5"])
            #expect(delta.records[0].fields?["v"] == .int64(2))
            #expect(delta.records[1].deleted == true)
            #expect(delta.records[1].fields == nil)
            let nothing = try await server.changes(zone: "Z", token: delta.token)
            #expect(nothing.records.isEmpty && !nothing.moreComing)
            #expect(nothing.syncToken == delta.token)
        }
    }

    /// Paging with a small `resultsLimit` sets `moreComing` and never skips or repeats a change.
    @Test(arguments: backends) func pagingSetsMoreComingAndCoversEverything(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.createZones(["Z"])
            let operations = (0..<25).map { RecordOperation.create(Record(recordName: "r\($0)", recordType: "Note", fields: ["v": .int64(Int64($0))])) }
            _ = try await server.modify(operations, zone: "Z")
            let firstPage = try await server.changes(zone: "Z", limit: 10)
            #expect(firstPage.records.count == 10 && firstPage.moreComing)
            let all = try await server.allChanges(zone: "Z", pageSize: 7)
            #expect(all.records.compactMap(\.recordName).sorted() == (0..<25).map { "r\($0)" }.sorted())
        }
    }

    /// Writers that keep going while a reader pages the feed cause no gap and no duplicate.
    @Test(arguments: backends) func concurrentWritesWhilePagingLoseNothing(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.createZones(["Z"])
            let done = DoneFlag()
            let writer = Task {
                defer { done.set() }
                for batch in 0..<20 {
                    let operations = (0..<10).map {
                        RecordOperation.create(Record(recordName: "b\(batch)-\($0)", recordType: "Note", fields: ["v": .int64(1)]))
                    }
                    _ = try await server.modify(operations, zone: "Z")
                }
            }
            var seen: [String: Int] = [:]
            var token: SyncToken?
            while true {
                // If the writer had finished before this full drain began, the drain saw everything.
                let writerFinished = done.isSet
                let drained = try await server.allChanges(zone: "Z", from: token, pageSize: 7)
                for record in drained.records { seen[record.recordName ?? "", default: 0] += 1 }
                token = drained.token
                if writerFinished { break }
            }
            try await writer.value
            #expect(seen.count == 200)
            #expect(seen.values.allSatisfy { $0 == 1 })
        }
    }

    /// The default zone has no change feed.
    @Test(arguments: backends) func defaultZoneHasNoChangeFeed(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let (status, json) = try await server.postJSON("records/changes", #"{"zoneID":{"zoneName":"_defaultZone"}}"#)
            #expect(status == 400)
            #expect(json.string("reason") == "cannot get changes in default zone")
        }
    }

    /// The public database has no change feeds.
    @Test(arguments: backends) func publicDatabaseHasNoChangeFeeds(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            for operation in ["records/changes", "changes/zone", "changes/database", "zones/changes"] {
                let (status, json) = try await server.postJSON(operation, #"{"zoneID":{"zoneName":"_defaultZone"},"zones":[]}"#, database: "public")
                #expect(status == 400, "\(operation)")
                #expect(json.string("serverErrorCode") == "BAD_REQUEST")
            }
        }
    }

    /// A tampered token, a token of another zone and a token of a deleted-and-recreated zone are refused with advice to resync.
    @Test(arguments: backends) func badTokensAreRefusedWithAdviceToResync(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.createZones(["A", "B"])
            try await server.create("r", fields: [:], zone: "A")
            let tokenA = try await server.changes(zone: "A").syncToken
            var tampered = tokenA.rawValue
            tampered.replaceSubrange(tampered.startIndex...tampered.startIndex, with: tampered.first == "A" ? "B" : "A")
            for (zone, token) in [("A", tampered), ("B", tokenA.rawValue), ("A", "garbage")] {
                let (status, json) = try await server.postJSON("records/changes", #"{"zoneID":{"zoneName":"\#(zone)"},"syncToken":"\#(token)"}"#)
                #expect(status == 400)
                #expect(json.string("reason")?.contains("without a token") == true, "\(json)")
            }
            _ = try await server.send("zones/modify", ZonesModify.Request(operations: [.delete(ZoneID(zoneName: "A"))]), as: ZonesModify.Response.self)
            try await server.createZones(["A"])
            let (status, json) = try await server.postJSON("records/changes", #"{"zoneID":{"zoneName":"A"},"syncToken":"\#(tokenA.rawValue)"}"#)
            #expect(status == 400)
            #expect(json.string("reason")?.contains("deleted") == true)
        }
    }

    /// `changes/zone` serves several zones at once, filters by record type, and fails a missing zone alone.
    @Test(arguments: backends) func changesZoneServesSeveralZonesWithPerZoneErrors(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.createZones(["A", "B"])
            try await server.create("note", type: "Note", fields: [:], zone: "A")
            try await server.create("task", type: "Task", fields: [:], zone: "A")
            try await server.create("other", type: "Note", fields: [:], zone: "B")
            let request = ZoneChanges.Request(
                zones: [
                    ZoneChanges.ZoneOptions(zoneID: ZoneID(zoneName: "A"), desiredRecordTypes: ["Task"]),
                    ZoneChanges.ZoneOptions(zoneID: ZoneID(zoneName: "B")),
                    ZoneChanges.ZoneOptions(zoneID: ZoneID(zoneName: "Missing")),
                ]
            )
            let results = try await server.send("changes/zone", request, as: ZoneChanges.Response.self).zones
            guard case .changes(let a) = results[0], case .changes(let b) = results[1], case .error(let missing) = results[2] else {
                Issue.record("unexpected results \(results)")
                return
            }
            #expect(a.records.compactMap(\.record?.recordName) == ["task"])
            #expect(b.records.compactMap(\.record?.recordName) == ["other"])
            #expect(missing.serverErrorCode == .zoneNotFound)
        }
    }

    /// `changes/database` names the zones that changed since its token, deleted ones with `deleted: true`.
    @Test(arguments: backends) func databaseChangesNameChangedAndDeletedZones(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.createZones(["A", "B", "C"])
            let start = try await server.send("changes/database", DatabaseChanges.Request(), as: DatabaseChanges.Response.self)
            #expect(Set(start.zones.compactMap(\.zone?.zoneID.zoneName)) == ["A", "B", "C"])
            let quiet = try await server.send("changes/database", DatabaseChanges.Request(syncToken: start.syncToken), as: DatabaseChanges.Response.self)
            #expect(quiet.zones.isEmpty)

            try await server.create("r", fields: [:], zone: "B")
            _ = try await server.send("zones/modify", ZonesModify.Request(operations: [.delete(ZoneID(zoneName: "C"))]), as: ZonesModify.Response.self)
            let delta = try await server.send("changes/database", DatabaseChanges.Request(syncToken: start.syncToken), as: DatabaseChanges.Response.self)
            let zones = delta.zones.compactMap(\.zone)
            #expect(zones.map(\.zoneID.zoneName) == ["B", "C"])
            #expect(zones.map(\.deleted) == [nil, true])

            let meta = try await server.send("zones/changes", ZonesChanges.Request(), as: ZonesChanges.Response.self)
            #expect(Set(meta.zones.compactMap(\.zone?.zoneID.zoneName)) == ["A", "B", "C"])
            let metaDelta = try await server.send("zones/changes", ZonesChanges.Request(metaSyncToken: meta.metaSyncToken), as: ZonesChanges.Response.self)
            #expect(metaDelta.zones.isEmpty && !metaDelta.moreComing)
        }
    }

    /// A database token is good only for its own database.
    @Test(arguments: backends) func databaseTokenIsBoundToItsDatabase(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let token = try await server.send("changes/database", DatabaseChanges.Request(), as: DatabaseChanges.Response.self).syncToken
            let (status, _) = try await server.postJSON("changes/database", #"{"syncToken":"\#(token.rawValue)"}"#, environment: "production")
            #expect(status == 400)
        }
    }
}

/// A flag one task sets and another reads.
final class DoneFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
