import Foundation
import StratusTesting
import Testing

/// `stratus serve`'s memory flags (`--sqlite-*`, `--connection-memory-kb`): out-of-range values
/// stop the server at start with a message naming the flag, and a value given reaches the store.
@Suite struct ServeMemoryFlagsTests {
    @Test func outOfRangeValuesAreRefusedNamingTheFlag() async throws {
        let cases: [([String], String)] = [
            (["--sqlite-readers", "0"], "--sqlite-readers must be a whole number from 1 to 64; got '0'"),
            (["--sqlite-cache-mb", "lots"], "--sqlite-cache-mb must be a whole number from 1 to 65536; got 'lots'"),
            (["--sqlite-reader-cache-mb", "0"], "--sqlite-reader-cache-mb must be a whole number from 1 to 65536; got '0'"),
            (["--sqlite-mmap-mb", "-1"], "--sqlite-mmap-mb must be a whole number from 0 to 1048576; got '-1'"),
            (["--connection-memory-kb", "4"], "--connection-memory-kb must be a whole number from 8 to 1024; got '4'"),
        ]
        for (arguments, message) in cases {
            let refused = try await WebServeProcess.refusal(arguments)
            #expect(refused.status != 0, "stratus serve \(arguments.joined(separator: " ")) started")
            #expect(refused.errors.contains(message), "\(refused.errors)")
        }
    }

    /// `--database-feed-wait` is PostgreSQL's (its feed holds back zones written after writes in
    /// flight): refused with SQLite, and out of range, naming the flag.
    @Test func theDatabaseFeedWaitNeedsPostgresAndARange() async throws {
        let withSQLite = try await WebServeProcess.refusal(["--database-feed-wait", "5"])
        #expect(withSQLite.status != 0)
        #expect(withSQLite.errors.contains("--database-feed-wait is how long a PostgreSQL database feed waits"), "\(withSQLite.errors)")
        let tooLong = try await WebServeProcess.refusal(["--database-feed-wait", "301", "--database", "postgres://nobody@127.0.0.1:1/none"])
        #expect(tooLong.status != 0)
        #expect(tooLong.errors.contains("--database-feed-wait must be a whole number from 0 to 300; got '301'"), "\(tooLong.errors)")
    }

    /// A PostgreSQL server that cannot be reached stops `serve` with the reason, not a crash.
    @Test func anUnreachableDatabaseIsRefusedWithTheReason() async throws {
        let refused = try await WebServeProcess.refusal(["--database", "postgres://nobody@127.0.0.1:1/none?connect_timeout=5"])
        #expect(refused.status == 1, "\(refused.errors)")
        #expect(refused.errors.contains("127.0.0.1"), "\(refused.errors)")
        #expect(!refused.errors.contains("crashed"), "\(refused.errors)")
    }

    /// The SQLite flags mean nothing with PostgreSQL: refused before any connection is tried.
    @Test func sqliteFlagsWithPostgresAreRefused() async throws {
        let refused = try await WebServeProcess.refusal(["--sqlite-mmap-mb", "0", "--database", "postgres://nobody@127.0.0.1:1/none"])
        #expect(refused.status != 0)
        #expect(refused.errors.contains("--sqlite-mmap-mb size the SQLite store, and --database keeps the records in PostgreSQL"), "\(refused.errors)")
    }

    #if os(Linux)
    /// `--sqlite-mmap-mb` decides whether the database file is mapped into the server's memory
    /// (`/proc/PID/maps`) once a reader has read it (`/ready` reads the store).
    @Test func theMemoryMapFlagDecidesWhetherTheDatabaseIsMapped() async throws {
        for (megabytes, mapped) in [("64", true), ("0", false)] {
            try await WebServeProcess.with(["--sqlite-mmap-mb", megabytes]) { server in
                let ready = try await server.exchange("GET /ready HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                #expect(ready.status == 200)
                // NB: read to the end: /proc files report a size of 0.
                let maps = String(decoding: FileHandle(forReadingAtPath: "/proc/\(server.pid)/maps")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
                #expect(maps.contains("libsqlite3"), "could not read the server's maps")
                #expect(maps.contains("/stratus.sqlite\n") == mapped, "--sqlite-mmap-mb \(megabytes)")
            }
        }
    }
    #endif
}
