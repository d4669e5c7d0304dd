import Foundation
import StratusSQLite
import StratusTesting
import Testing

@Suite struct DurabilityTests {
    /// Data written through a pool is there after the pool is closed and reopened.
    @Test func dataSurvivesCloseAndReopen() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pool = try makePool(in: directory)
        try await pool.write { db in
            try db.execute(sql: "CREATE TABLE t (x INTEGER)")
            for n in 0..<1000 { try db.execute("INSERT INTO t VALUES (?)", binding: n) }
        }
        try pool.close()

        let reopened = try makePool(in: directory)
        #expect(try await reopened.read { db in try db.fetchOne(Int.self, "SELECT sum(x) FROM t") } == 499_500)
        try reopened.close()
    }

    /// A pool dropped without close() or a checkpoint leaves its commits readable.
    @Test func dataSurvivesDroppingThePool() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let pool = try makePool(in: directory)
            try await pool.write { db in
                try db.execute(sql: "CREATE TABLE t (x INTEGER)")
                try db.execute("INSERT INTO t VALUES (42)")
            }
        }
        let reopened = try makePool(in: directory)
        #expect(try await reopened.read { db in try db.fetchOne(Int.self, "SELECT x FROM t") } == 42)
        try reopened.close()
    }

    /// The files as a killed process would leave them (WAL never checkpointed) hold every commit.
    @Test func uncheckpointedWALHoldsCommits() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pool = try makePool(in: directory) { configuration in
            configuration.prepareConnection = { db in
                if !db.isReadOnly { try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
            }
        }
        try await pool.write { db in try db.execute(sql: "CREATE TABLE t (x INTEGER)") }
        for n in 1...50 {
            try await pool.write { db in try db.execute("INSERT INTO t VALUES (?)", binding: n) }
        }
        // Snapshot the files while the pool is still open: that is what `kill -9` leaves behind.
        let crashed = try TemporaryDirectory()
        defer { crashed.remove() }
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(
                atPath: directory.path("pool.sqlite\(suffix)"), toPath: crashed.path("pool.sqlite\(suffix)"))
        }
        let walSize = try FileManager.default.attributesOfItem(atPath: crashed.path("pool.sqlite-wal"))[.size] as? Int
        #expect((walSize ?? 0) > 0, "the commits should still be in the WAL only")
        try pool.close()

        let recovered = try makePool(in: crashed)
        #expect(try await recovered.read { db in try db.fetchOne(Int.self, "SELECT sum(x) FROM t") } == 1275)
        try recovered.close()
    }
}
