import Foundation
import StratusSQLite
import StratusTesting
import Testing

/// `SQLiteConfiguration.fileMode`: the database and its WAL companions get exactly these permissions, whatever the umask.
@Suite struct SQLiteFileModeTests {
    static func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func aNewDatabaseAndItsCompanionsAreCreatedOwnerOnly() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let previous = umask(0o022)
        defer { umask(previous) }
        var configuration = SQLiteConfiguration(path: directory.path("private.sqlite"))
        configuration.fileMode = 0o600
        let pool = try SQLiteDatabasePool(configuration: configuration)
        try await pool.write { db in try db.execute("CREATE TABLE secrets (value TEXT)") }
        for suffix in ["", "-wal", "-shm"] {
            #expect(try Self.mode(directory.path("private.sqlite" + suffix)) == 0o600, "private.sqlite\(suffix)")
        }
    }

    @Test func anExistingWorldReadableDatabaseIsNarrowed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("old.sqlite")
        do {
            let pool = try SQLiteDatabasePool(configuration: SQLiteConfiguration(path: path))
            try await pool.write { db in try db.execute("CREATE TABLE secrets (value TEXT)") }
        }
        chmod(path, 0o644)
        var configuration = SQLiteConfiguration(path: path)
        configuration.fileMode = 0o600
        let pool = try SQLiteDatabasePool(configuration: configuration)
        #expect(try await pool.read { db in try db.fetchOne("SELECT count(*) FROM secrets") { row -> Int in try row[0] } } == 0)
        #expect(try Self.mode(path) == 0o600)
    }
}
