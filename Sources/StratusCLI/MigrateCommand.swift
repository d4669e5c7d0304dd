import StratusLogging
import StratusServer

/// `stratus migrate`: brings the database's schema up to date (and refuses one a newer Stratus wrote).
enum MigrateCommand {
    static let usage = """
        stratus migrate [--data-dir ./.stratus] [--database postgres://…]

        Applies the schema migrations the database lacks, then exits. `stratus serve` applies
        them too when it starts; run this first when several nodes share one PostgreSQL
        database, so they start on the new schema together. A database migrated by a newer
        Stratus is refused.
        """

    static func run(_ options: Options) async throws {
        let unknown = options.unknownFlags(known: ["data-dir", "database"])
        guard unknown.isEmpty else { throw CLIError("unknown flag(s): \(unknown.map { "--" + $0 }.joined(separator: ", "))\n\n\(usage)") }
        let directory = try DataDirectory(options)
        let store = try await directory.openStore(logger: .disabled)
        try await store.close()
        print("The \(directory.isPostgres ? "PostgreSQL" : "SQLite") schema is up to date.")
    }
}
