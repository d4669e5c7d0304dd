import StratusSQLite
import StratusTesting

/// A connection on a fresh file in its own temporary directory.
final class TestConnection {
    let directory: TemporaryDirectory
    let db: SQLiteConnection

    init(configuration: (inout SQLiteConfiguration) -> Void = { _ in }) throws {
        directory = try TemporaryDirectory(prefix: "stratus-sqlite")
        var config = SQLiteConfiguration(path: directory.path("test.sqlite"))
        configuration(&config)
        db = try SQLiteConnection(configuration: config)
    }

    deinit {
        try? db.close()
        directory.remove()
    }
}

/// A pool on a fresh file in its own temporary directory.
func makePool(
    in directory: TemporaryDirectory, name: String = "pool.sqlite", readerCount: Int = 4,
    configure: (inout SQLiteConfiguration) -> Void = { _ in }
) throws -> SQLiteDatabasePool {
    var configuration = SQLiteConfiguration(path: directory.path(name))
    configuration.readerCount = readerCount
    configure(&configuration)
    return try SQLiteDatabasePool(configuration: configuration)
}
