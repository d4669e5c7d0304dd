import Foundation
@testable import StratusServer
@testable import StratusServerSQLite
import StratusLogging
import StratusSQLite
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// A development index is built a chunk of records per write transaction (Documentation/0002,
/// "Index builds in chunks"): writes between chunks, crashes between chunks and queries during the
/// build all end with exactly the rows a full rebuild gives.
@Suite struct SQLiteFieldIndexBuildTests {
    /// Every index of `Item` turned on, as development queries would, in one write.
    static func turnOnEveryIndex(_ store: any RecordStore) async throws {
        try await store.write { tx in
            var schema = try tx.schema(container: TestCloudKitServer.container, environment: .development)
            let fields = try #require(schema.recordTypes["Item"]?.fields)
            schema.recordTypes["Item"] = RecordTypeSchema(fields: fields.mapValues { $0.fullyIndexed })
            try tx.saveSchema(schema, container: TestCloudKitServer.container, environment: .development)
        }
    }

    static func record(_ name: String, _ index: Int) -> Record {
        Record(recordName: name, recordType: "Item", fields: SQLiteFieldIndexRebuildTests.fields(index))
    }

    /// The query the race test waits on, and what it must answer: `score` = 10, by name.
    static let query = try? RecordsQuery.Request.json(
        "Item", filters: [#"{"fieldName":"score","comparator":"EQUALS","fieldValue":{"value":10}}"#], sorts: [], extra: #","resultsLimit":200"#)

    @Test func writesBetweenChunksLeaveExactlyTheRowsOfAFullRebuild() async throws {
        try await QueryHarness.with(.sqlite) { harness in
            let store = try #require(harness.server.store as? SQLiteRecordStore)
            for start in [0, 150] { try await harness.save((start..<start + 150).map { Self.record("r\($0)", $0) }) }
            await store.indexBuilder.stop()
            try await Self.turnOnEveryIndex(store)
            #expect(store.indexBuilder.pendingTypes == ["Item"])
            let request = try #require(Self.query)
            let answered = Answered()
            let query = Task {
                defer { answered.flag.store(true, ordering: .sequentiallyConsistent) }
                return try await harness.names(request)
            }
            let db = try SQLiteConnection(path: harness.server.directory.path("stratus.sqlite"))
            defer { try? db.close() }
            var chunks = 0
            var failure: (any Error)?
            do {
                while try !db.transaction(.immediate, { try SQLiteFieldIndexBuild.step($0, chunkSize: 23) }).isEmpty {
                    chunks += 1
                    // Names before every old one ("a…", in chunks done) and after them ("z…", to come); updates
                    // and deletions of records in chunks done and to come.
                    try await harness.save([Self.record("a\(chunks)", chunks), Self.record("z\(chunks)", chunks + 7)])
                    try await harness.save([Self.record("r\(chunks * 7 % 300)", chunks + 1_000), Self.record("a\(chunks / 2)", chunks + 2_000)])
                    try await harness.delete(["r\((chunks * 13 + 5) % 300)", "z\(chunks / 3)"])
                }
            } catch {
                failure = error
            }
            let answeredEarly = answered.flag.load(ordering: .sequentiallyConsistent)
            // NB: the builder goes on either way, so the waiting query ends (with the build's error, if any).
            store.indexBuilder.start()
            let names = try await query.value
            if let failure { throw failure }
            #expect(chunks > 100)
            #expect(!answeredEarly, "a query ran before its index was built")
            let expected = try db.fetchAll(
                String.self,
                "SELECT record_name FROM records WHERE record_type = 'Item' AND deleted = 0 AND json_extract(CAST(fields AS TEXT), '$.score.value') = 10"
            )
            #expect(names.sorted() == expected.sorted() && !expected.isEmpty)
            try Self.expectFullRebuildRows(db)
        }
    }

    @Test func aBuildStoppedBetweenChunksIsNotMarkedBuiltAndTheNextStartCompletesIt() async throws {
        try await QueryHarness.with(.sqlite) { harness in
            let store = try #require(harness.server.store as? SQLiteRecordStore)
            try await harness.save((0..<120).map { Self.record("r\($0)", $0) })
            await store.indexBuilder.stop()
            try await Self.turnOnEveryIndex(store)
            let path = harness.server.directory.path("stratus.sqlite")
            let db = try SQLiteConnection(path: path)
            defer { try? db.close() }
            // Two chunks commit, then the process "dies": nothing but the committed chunks is left.
            for _ in 0..<2 { _ = try db.transaction(.immediate) { try SQLiteFieldIndexBuild.step($0, chunkSize: 25) } }
            let left = try db.fetchAll("SELECT field_name, done_through FROM field_index_builds WHERE record_type = 'Item'") { row in
                (field: try row[0] as String, doneThrough: try row[1] as String?)
            }
            #expect(left.count > 5 && left.contains { $0.doneThrough != nil }, "the build is marked done before its last chunk")
            // The next start (another store on the file, as a restarted server) finds the builds and completes them.
            let restarted = try await SQLiteRecordStore.open(path: path, memory: SQLiteStoreMemory(), indexBuildChunkSize: 7, logger: .disabled)
            #expect(restarted.indexBuilder.pendingTypes == ["Item"])
            try await restarted.indexBuilder.waitUntilBuilt("Item")
            try await restarted.close()
            #expect(try SQLiteFieldIndexBuild.pendingTypes(db).isEmpty)
            try Self.expectFullRebuildRows(db)
        }
    }

    @Test func aQueryRightAfterALoadWaitsForItsIndexAndAnswersFromAllRecords() async throws {
        try await QueryHarness.with(.sqlite) { harness in
            for start in stride(from: 0, to: 3_000, by: 200) {
                try await harness.save((start..<start + 200).map { Self.record("r\($0)", $0) })
            }
            let request = try #require(Self.query)
            let names = try await harness.names(request)
            let expected = (0..<3_000).filter { $0 % 7 != 0 && $0 % 3 != 0 && $0 % 100 == 60 }.map { "r\($0)" }
            #expect(names.sorted() == expected.sorted() && expected.count > 5)
        }
    }

    /// A write that takes the writer without the group-commit queue (accounts, the console) waits for one
    /// chunk of a build, not for the up to 40 chunks a transaction takes while nobody waits.
    @Test func aWriteOutsideTheQueueWaitsForOneChunkOnly() async throws {
        try await QueryHarness.with(.sqlite) { harness in
            let store = try #require(harness.server.store as? SQLiteRecordStore)
            await store.indexBuilder.stop()
            for start in stride(from: 0, to: 2_000, by: 200) {
                try await harness.save(
                    (start..<start + 200).map { Record(recordName: String(format: "r%05d", $0), recordType: "Item", fields: ["score": .int64(Int64($0))]) })
            }
            let chunkSize = 10
            let other = try await SQLiteRecordStore.open(
                path: harness.server.directory.path("stratus.sqlite"), memory: SQLiteStoreMemory(), indexBuildChunkSize: chunkSize, logger: .disabled)
            await other.indexBuilder.stop()
            try await Self.turnOnEveryIndex(other)
            // The writer is held while the build's first transaction and then the write queue behind it.
            let release = DispatchSemaphore(value: 0)
            other.pool.enqueueOnWriter { _ in release.wait() }
            other.indexBuilder.start()
            try await Self.until { other.pool.writerBacklog == 1 }
            let write = Task {
                try await other.pool.write { db in
                    try db.fetchOne(
                        Int.self,
                        "SELECT count(*) FROM records WHERE record_type = 'Item' AND record_name <= (SELECT done_through FROM field_index_builds WHERE field_name = 'score')"
                    ) ?? 0
                }
            }
            try await Self.until { other.pool.writerBacklog == 2 }
            release.signal()
            let builtBeforeTheWrite = try await write.value
            #expect((1...chunkSize).contains(builtBeforeTheWrite), "the write waited for \(builtBeforeTheWrite / chunkSize) chunks")
            try await other.indexBuilder.waitUntilBuilt("Item")
            try await other.close()
        }
    }

    /// Returns once `condition` holds (polled every 10 ms for up to 30 s).
    static func until(_ condition: () -> Bool) async throws {
        for _ in 0..<3_000 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(condition(), "timed out")
    }

    /// Whether a query task has returned.
    final class Answered: Sendable {
        let flag = Atomic<Bool>(false)
    }

    /// The index rows equal those `rebuildAll` (decoding every whole record) gives.
    static func expectFullRebuildRows(_ db: SQLiteConnection) throws {
        let built = try SQLiteFieldIndexRebuildTests.indexRows(db)
        #expect(built.values.count > 1_000 && built.tokens.count > 1_000)
        try db.transaction(.immediate) { try SQLiteFieldIndex.rebuildAll($0) }
        let decoded = try SQLiteFieldIndexRebuildTests.indexRows(db)
        #expect(Set(built.values).symmetricDifference(decoded.values).sorted().prefix(20) == [])
        #expect(Set(built.tokens).symmetricDifference(decoded.tokens).sorted().prefix(20) == [])
        #expect(built.values.count == decoded.values.count && built.tokens.count == decoded.tokens.count)
    }
}
