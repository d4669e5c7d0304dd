import BenchSupport
import Foundation
import StratusSQLite
import StratusWire

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The physical limits each scenario is compared with, measured in the same run.
enum Baselines {
    /// Raw SQLite through StratusSQLite: the store's records table (same columns, primary key and
    /// indexes, WAL, `synchronous=NORMAL`), the same ~200-byte field blobs, prepared statements,
    /// no service, no HTTP, no JSON (blobs are encoded before the clock starts).
    struct SQLiteFigures {
        /// Rows/s inserting `count` rows, `batch` rows per transaction.
        var batchInsertsPerSecond: Double
        /// Rows/s inserting rows one transaction each.
        var singleInsertsPerSecond: Double
        /// Rows/s reading every row back in pages of 200 by change sequence.
        var pagedReadsPerSecond: Double
    }

    static let recordsTable = """
        CREATE TABLE records (
            zone_id INTEGER NOT NULL, record_name TEXT NOT NULL, record_type TEXT NOT NULL, change_tag TEXT NOT NULL,
            seq INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0, fields BLOB, created_at INTEGER NOT NULL,
            created_by TEXT NOT NULL, created_device TEXT NOT NULL, modified_at INTEGER NOT NULL, modified_by TEXT NOT NULL,
            modified_device TEXT NOT NULL, PRIMARY KEY (zone_id, record_name)
        ) WITHOUT ROWID;
        CREATE UNIQUE INDEX records_changes ON records (zone_id, seq);
        CREATE INDEX records_by_type ON records (zone_id, record_type, record_name) WHERE deleted = 0;
        """

    static let insert = """
        INSERT INTO records (zone_id, record_name, record_type, change_tag, seq, deleted, fields, created_at, created_by,
            created_device, modified_at, modified_by, modified_device) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?)
        """

    static func sqlite(count: Int, batch: Int, singles: Int) throws -> SQLiteFigures {
        let directory = try TemporaryPath(prefix: "records-bench-raw")
        defer { directory.remove() }
        let pool = try SQLiteDatabasePool(configuration: SQLiteConfiguration(path: directory.path("raw.sqlite")))
        defer { try? pool.close() }
        try pool.writeWithoutTransactionSync { try $0.execute(sql: recordsTable) }
        let blobs = try (0..<count).map { Data(try WireCoding.encode(Payloads.fields($0))) }
        let user = "_00000000000000000000000000000001"

        func insertRows(_ range: Range<Int>, zone: Int64, _ db: SQLiteConnection) throws {
            for index in range {
                let sequence = Int64(index + 1)
                let now = Payloads.base + sequence
                try db.execute(
                    insert, binding: zone, Payloads.name("r", index), Payloads.recordType, String(sequence, radix: 36), sequence,
                    blobs[index % blobs.count], now, user, "web", now, user, "web"
                )
            }
        }

        var start = monotonicNanoseconds()
        for first in stride(from: 0, to: count, by: batch) {
            try pool.writeSync { db in try insertRows(first..<min(first + batch, count), zone: 1, db) }
        }
        let batched = Double(count) / seconds(since: start)

        start = monotonicNanoseconds()
        for index in 0..<singles {
            try pool.writeSync { db in try insertRows(index..<(index + 1), zone: 2, db) }
        }
        let single = Double(singles) / seconds(since: start)

        start = monotonicNanoseconds()
        var read = 0
        var after: Int64 = 0
        while true {
            let page = try pool.readSync { db in
                try db.fetchAll(
                    "SELECT record_name, record_type, change_tag, seq, fields, created_at, created_by, modified_at, modified_by FROM records WHERE zone_id = 1 AND seq > ? ORDER BY seq LIMIT 200",
                    [after]
                ) { row -> (String, Int64, Data) in (try row[0], try row[3], try row[4]) }
            }
            read += page.count
            guard let last = page.last, page.count == 200 else { break }
            after = last.1
        }
        let paged = Double(read) / seconds(since: start)
        guard read == count else { throw BenchFailure("raw SQLite read back \(read) of \(count) rows") }
        return SQLiteFigures(batchInsertsPerSecond: batched, singleInsertsPerSecond: single, pagedReadsPerSecond: paged)
    }

    /// Latencies in µs of `count` sequential exchanges on one keep-alive connection (after 50 warm-ups).
    static func latencies(count: Int, _ exchange: () throws -> Void) rethrows -> [Double] {
        for _ in 0..<50 { try exchange() }
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for _ in 0..<count {
            let start = monotonicNanoseconds()
            try exchange()
            samples.append(Double(monotonicNanoseconds() - start) / 1000)
        }
        return samples
    }

    /// p50 in µs of sequential `GET /health` through URLSession (libcurl), for comparison only.
    static func urlSessionHealth(port: UInt16, count: Int) async throws -> Double {
        let url = URL(string: "http://127.0.0.1:\(port)/health")!
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        for _ in 0..<20 { _ = try await session.data(from: url) }
        var samples: [Double] = []
        for _ in 0..<count {
            let start = monotonicNanoseconds()
            let (_, response) = try await session.data(from: url)
            samples.append(Double(monotonicNanoseconds() - start) / 1000)
            guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw BenchFailure("URLSession /health failed") }
        }
        return percentile(samples, 50)
    }
}

/// Seconds elapsed since a `monotonicNanoseconds()` reading.
func seconds(since start: UInt64) -> Double {
    Double(monotonicNanoseconds() - start) / 1e9
}
