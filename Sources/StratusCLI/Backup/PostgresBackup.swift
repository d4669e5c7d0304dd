import Foundation
import StratusPostgres

/// `stratus backup` and `stratus restore` with `--database postgres://…`: `pg_dump` of one
/// exported snapshot, and the asset files that snapshot knows (Documentation/0015-operations.md).
///
/// A `REPEATABLE READ READ ONLY` transaction exports its snapshot (`pg_export_snapshot()`), reads
/// the asset keys in it, and holds it open while `pg_dump --snapshot` dumps the database from the
/// very same snapshot: the dump and the asset list agree, and every transaction committed before
/// the backup began is in both, none half. The nodes keep writing meanwhile.
enum PostgresBackup {
    static let dumpEntry = "database.pgdump"

    /// Dumps the database into `file` from one snapshot; returns the asset keys it knows and those records reference.
    static func snapshot(_ url: String, into file: URL) throws -> (known: Set<String>, referenced: Set<String>) {
        let connection = try PostgresConnection(url: url)
        return try connection.transaction(isolation: .repeatableRead, readOnly: true) { db in
            guard let name: String = try db.queryFirst("SELECT pg_export_snapshot()")?[0] else {
                throw CLIError("PostgreSQL exported no snapshot")
            }
            guard try db.queryFirst("SELECT to_regclass('assets') IS NOT NULL AND to_regclass('asset_refs') IS NOT NULL")?[0] == true else {
                throw CLIError("the database holds no Stratus tables; nothing to back up")
            }
            let known: [String] = try db.query("SELECT key FROM assets").map { try $0[0] }
            let referenced: [String] = try db.query("SELECT DISTINCT key FROM asset_refs").map { try $0[0] }
            try run("pg_dump", ["--format=custom", "--no-owner", "--no-privileges", "--snapshot=\(name)", "--file=\(file.path)", "--dbname=\(url)"])
            return (Set(known), Set(referenced))
        }
    }

    /// Restores a checked dump into a database that holds no Stratus tables.
    static func restore(_ dump: URL, into url: String) throws {
        let connection = try PostgresConnection(url: url)
        guard try connection.queryFirst("SELECT to_regclass('containers') IS NULL")?[0] == true else {
            throw CLIError("the database already holds Stratus tables; restore into an empty database (nothing was changed)")
        }
        try checkContents(of: dump)
        try run("pg_restore", ["--single-transaction", "--exit-on-error", "--no-owner", "--no-privileges", "--dbname=\(url)", dump.path])
    }

    /// The kinds of entry a dump of Stratus's tables holds; anything else (functions, triggers,
    /// extensions, event triggers, large objects) is refused before `pg_restore` runs it.
    static let allowedEntries: Set<String> = [
        "TABLE", "TABLE DATA", "INDEX", "CONSTRAINT", "FK CONSTRAINT", "SEQUENCE", "SEQUENCE OWNED BY", "SEQUENCE SET", "DEFAULT",
    ]

    /// Lists the dump's table of contents (`pg_restore --list`) and refuses unexpected entries.
    private static func checkContents(of dump: URL) throws {
        let listing = try run("pg_restore", ["--list", dump.path])
        for line in listing.split(separator: "\n") where !line.hasPrefix(";") && !line.trimmingCharacters(in: .whitespaces).isEmpty {
            // "1234; 1259 16385 TABLE public records postgres": the kind follows the three numbers.
            let words = line.split(separator: " ").dropFirst(3)
            guard allowedEntries.contains(where: { kind in words.joined(separator: " ").hasPrefix(kind + " ") }) else {
                throw CLIError("the backup's database dump holds an entry a Stratus backup does not: '\(line.prefix(120))'; nothing was restored")
            }
        }
    }

    /// Runs a PostgreSQL client program found on `PATH`; returns its standard output.
    @discardableResult
    static func run(_ program: String, _ arguments: [String]) throws -> String {
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-\(program)-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: errorFile.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CLIError("cannot write \(errorFile.path)")
        }
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorFile)
        do {
            try process.run()
        } catch {
            throw CLIError("cannot run \(program) (install PostgreSQL's client programs, Debian's postgresql-client): \(error)")
        }
        // NB: the output is read to its end before waiting, so a long listing cannot block the program on a full pipe.
        let text = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let errors = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
            throw CLIError("\(program) failed (exit \(process.terminationStatus)): \(errors.prefix(2000))")
        }
        return String(decoding: text, as: UTF8.self)
    }
}
