import Foundation
import StratusPostgres

/// A database of its own on the test PostgreSQL server (`STRATUS_POSTGRES_URL`), for tests
/// that run `stratus serve --database postgres://…` processes, which use the `public` schema.
///
/// ```swift
/// let database = try PostgresScratchDatabase.create()
/// defer { database.drop() }
/// let node = try await StratusChildProcess.serve(
///     dataDirectory: directory.path("data"), logPath: directory.path("log"), arguments: ["--database", database.url])
/// ```
public struct PostgresScratchDatabase: Sendable {
    /// The database's name (`stratus_scratch_…`).
    public let name: String
    /// A connection URL (or libpq connection string) naming the database.
    public let url: String
    private let serverURL: String

    /// Creates an empty database with a random name.
    ///
    /// - Throws: ``TestServerFailure`` when `STRATUS_POSTGRES_URL` is not set; `PostgresError` when the server refuses.
    public static func create() throws -> PostgresScratchDatabase {
        let serverURL = try PostgresTestDatabase.url()
        let name = "stratus_scratch_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try PostgresConnection(url: serverURL).execute("CREATE DATABASE \(name)")
        return PostgresScratchDatabase(name: name, url: try Self.url(serverURL, naming: name), serverURL: serverURL)
    }

    /// `serverURL` with its database replaced by `name`: the path of a `postgres://` URI, or a
    /// `dbname=` appended to a key=value connection string (the last keyword wins in libpq).
    static func url(_ serverURL: String, naming name: String) throws -> String {
        guard serverURL.hasPrefix("postgres://") || serverURL.hasPrefix("postgresql://") else {
            return serverURL + " dbname=\(name)"
        }
        guard var components = URLComponents(string: serverURL) else {
            throw TestServerFailure(description: "STRATUS_POSTGRES_URL is not a valid URI: \(serverURL)")
        }
        components.path = "/" + name
        guard let url = components.string else {
            throw TestServerFailure(description: "could not name database \(name) in \(serverURL)")
        }
        return url
    }

    /// Runs one SQL statement in the database.
    ///
    /// - Throws: `PostgresError`.
    public func execute(_ sql: String) throws {
        try PostgresConnection(url: url).execute(sql)
    }

    /// Drops the database, ending any session still connected to it (a killed node's included).
    public func drop() {
        _ = try? PostgresConnection(url: serverURL).execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }
}
