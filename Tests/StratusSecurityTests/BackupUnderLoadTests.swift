import Foundation
import StratusTesting
import Synchronization
import Testing

/// `stratus backup` while eight writers commit atomic batches, on SQLite and on PostgreSQL: the
/// restored server's change feed holds every batch acknowledged before the backup began, each
/// batch whole or not at all, nothing never acknowledged, and each record once (issue 18).
@Suite struct BackupUnderLoadTests {
    static let container = BackupRestoreTests.container
    static let writers = 8

    /// The batches acknowledged so far, by writer.
    final class Ledger: Sendable {
        private let batches = Mutex<[Set<String>]>(Array(repeating: [], count: BackupUnderLoadTests.writers))
        /// Set when writers should stop: checked between requests, so none is cut off unanswered.
        private let stop = Mutex(false)
        var stopped: Bool { stop.withLock { $0 } }
        func stopWriters() { stop.withLock { $0 = true } }
        func acknowledge(_ batch: String, writer: Int) { batches.withLock { _ = $0[writer].insert(batch) } }
        var perWriter: [Int] { batches.withLock { $0.map(\.count) } }
        var all: Set<String> { batches.withLock { $0.reduce(into: []) { $0.formUnion($1) } } }
    }

    /// Saves `batch-a`, `batch-b` and `batch-c` in one atomic `records/modify`; whether it was acknowledged.
    static func saveBatch(_ server: WebServeProcess, _ batch: String) async throws -> Bool {
        let operations = ["a", "b", "c"].map {
            #"{"operationType":"create","record":{"recordType":"Note","recordName":"\#(batch)-\#($0)","fields":{"title":{"value":"\#(batch)"}}}}"#
        }
        let body = #"{"zoneID":\#(BackupRestoreTests.zone),"atomic":true,"operations":[\#(operations.joined(separator: ","))]}"#
        let reply = try await BackupRestoreTests.post(server, "records/modify", body)
        let records = reply.json["records"] as? [[String: Any]] ?? []
        return reply.status == 200 && records.count == 3 && records.allSatisfy { $0["serverErrorCode"] == nil }
    }

    /// Every record name of the zone's change feed, read in pages of 100.
    static func feed(_ server: WebServeProcess) async throws -> [String] {
        var names: [String] = []
        var token: String?
        for _ in 0..<10_000 {
            let tokenField = token.map { #","syncToken":"\#($0)""# } ?? ""
            let reply = try await BackupRestoreTests.post(
                server, "records/changes", #"{"zoneID":\#(BackupRestoreTests.zone),"resultsLimit":100\#(tokenField)}"#)
            #expect(reply.status == 200)
            names += (reply.json["records"] as? [[String: Any]] ?? []).compactMap { $0["recordName"] as? String }
            token = reply.json["syncToken"] as? String
            guard reply.json["moreComing"] as? Bool == true else { break }
        }
        return names
    }

    @Test(arguments: RecordStoreBackend.allCases)
    func aBackupTakenWhileEightWritersRunRestoresEveryAcknowledgedBatchWhole(_ backend: RecordStoreBackend) async throws {
        let scratch = try TemporaryDirectory(prefix: "stratus-backup-load")
        defer { scratch.remove() }
        let source = backend == .postgres ? try PostgresScratchDatabase.create() : nil
        let target = backend == .postgres ? try PostgresScratchDatabase.create() : nil
        defer {
            source?.drop()
            target?.drop()
        }
        let archive = scratch.url.appendingPathComponent("backup.tar")
        let ledger = Ledger()
        var acknowledgedBefore: Set<String> = []
        var token: String?
        try await WebServeProcess.with(["--open", "--threads", "4"] + (source.map { ["--database", $0.url] } ?? [])) { server in
            let database = source.map { ["--database", $0.url] } ?? []
            #expect(try await WebServeProcess.stratus(["container", "create", Self.container] + database, dataDirectory: server.dataDirectory).status == 0)
            let made = try await BackupRestoreTests.post(
                server, "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":\#(BackupRestoreTests.zone)}}]}"#)
            #expect(made.status == 200)
            try await BackupRestoreTests.savePhoto(server)
            token = try await BackupRestoreTests.changes(server, token: nil).token
            let writers = (0..<Self.writers).map { writer in
                Task {
                    // Paced a little, so eight writers load the server without starving the rest of the suite.
                    for index in 0..<100_000 where !ledger.stopped {
                        let batch = "w\(writer)-\(index)"
                        if (try? await Self.saveBatch(server, batch)) == true { ledger.acknowledge(batch, writer: writer) }
                        try? await Task.sleep(for: .milliseconds(5))
                    }
                }
            }
            // Every writer is committing when the backup begins.
            let running = await eventually(timeout: .seconds(60)) { ledger.perWriter.allSatisfy { $0 >= 3 } }
            #expect(running, "writers acknowledged \(ledger.perWriter)")
            acknowledgedBefore = ledger.all
            let backup = try await WebServeProcess.stratus(["backup", archive.path] + database, dataDirectory: server.dataDirectory)
            ledger.stopWriters()
            for writer in writers { await writer.value }
            #expect(backup.status == 0, "\(backup.errorOutput)")
        }
        let acknowledgedAll = ledger.all
        let restored = scratch.path("restored")
        let database = target.map { ["--database", $0.url] } ?? []
        let restore = try await WebServeProcess.stratus(["restore", archive.path] + database, dataDirectory: restored)
        #expect(restore.status == 0, "\(restore.errorOutput)")
        try await WebServeProcess.with(["--open", "--data-dir", restored] + database) { server in
            let names = try await Self.feed(server)
            #expect(names.count == Set(names).count, "a record appears twice in the change feed")
            var batches: [String: Int] = [:]
            for name in names where name != "photo" { batches[String(name.dropLast(2)), default: 0] += 1 }
            #expect(batches.values.allSatisfy { $0 == 3 }, "half-written batches: \(batches.filter { $0.value != 3 })")
            let present = Set(batches.keys)
            #expect(acknowledgedBefore.isSubset(of: present), "missing: \(acknowledgedBefore.subtracting(present).sorted().prefix(20))")
            #expect(present.isSubset(of: acknowledgedAll), "never acknowledged: \(present.subtracting(acknowledgedAll).sorted().prefix(20))")
            #expect(acknowledgedBefore.count >= Self.writers * 3)
            #expect(try await BackupRestoreTests.photo(server) == BackupRestoreTests.photoBytes, "the asset must come back byte for byte")
            #expect(try await BackupRestoreTests.changes(server, token: token).status == 200, "the old server's sync token must open on the restored one")
        }
    }
}

/// A PostgreSQL backup is restored with `pg_restore`, which runs the SQL in the dump: what the
/// dump may hold is checked first, and a database that has Stratus tables is never restored over.
@Suite(.enabled(if: PostgresTestDatabase.isEnabled)) struct PostgresBackupRefusalTests {
    @Test func aDumpWithFunctionsOrANonEmptyTargetIsRefused() async throws {
        let scratch = try TemporaryDirectory(prefix: "stratus-pg-backup-refusal")
        defer { scratch.remove() }
        let source = try PostgresScratchDatabase.create()
        let target = try PostgresScratchDatabase.create()
        defer {
            source.drop()
            target.drop()
        }
        let data = scratch.path("data")
        #expect(try await WebServeProcess.stratus(["migrate", "--database", source.url], dataDirectory: data).status == 0)
        try source.execute("CREATE FUNCTION planted() RETURNS integer LANGUAGE sql AS 'SELECT 1'")
        let archive = scratch.path("planted.tar")
        let backup = try await WebServeProcess.stratus(["backup", archive, "--database", source.url], dataDirectory: data)
        #expect(backup.status == 0, "\(backup.errorOutput)")
        let refused = try await WebServeProcess.stratus(["restore", archive, "--database", target.url], dataDirectory: scratch.path("restored"))
        #expect(refused.status != 0 && refused.errorOutput.contains("holds an entry a Stratus backup does not"), "\(refused.errorOutput)")
        let untouched = try await WebServeProcess.stratus(["restore", archive, "--database", source.url], dataDirectory: scratch.path("again"))
        #expect(untouched.status != 0 && untouched.errorOutput.contains("already holds Stratus tables"), "\(untouched.errorOutput)")

        try await WebServeProcess.with(["--open"]) { server in
            let sqliteArchive = scratch.path("sqlite.tar")
            #expect(try await WebServeProcess.stratus(["backup", sqliteArchive], dataDirectory: server.dataDirectory).status == 0)
            let mismatched = try await WebServeProcess.stratus(["restore", sqliteArchive, "--database", target.url], dataDirectory: scratch.path("mixed"))
            #expect(mismatched.status != 0 && mismatched.errorOutput.contains("backup of a sqlite database"), "\(mismatched.errorOutput)")
        }
        let tables = try await WebServeProcess.stratus(["container", "list", "--database", target.url], dataDirectory: scratch.path("check"))
        #expect(tables.status == 0 && tables.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(tables.output)")
    }
}
