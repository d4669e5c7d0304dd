import Foundation
import StratusLogging
import StratusServer

/// `stratus export <container> --output DIR` and `stratus import DIR`: one container in the
/// portable format, between back ends and servers (Documentation/0020-export-format.md).
enum ExportCommand {
    static var usage: String {
        """
        stratus export <container> --output DIR [--data-dir ./.stratus | --database postgres://…] [--assets-directory DIR]
        stratus import DIR [--data-dir ./.stratus | --database postgres://…] [--assets-directory DIR]

        export writes one container — its schema, zones, records (latest versions, with their
        change tags), shares, short GUIDs, subscriptions, the server's accounts with their
        password hashes, the container's API tokens and keys, and the assets records reference —
        into a new directory, read from one snapshot while the server runs. It holds password
        hashes: keep it as private as the data directory.
        import checks an export (manifest version, every file's size and SHA-256, every name and
        value) and loads it, in one transaction, into a store that does not hold the container:
        SQLite in --data-dir, or PostgreSQL with --database. This is how a container moves
        from SQLite to PostgreSQL and back, or to another server. Sync tokens and sign-in
        sessions do not carry over: clients refetch (their records keep their change tags) and
        users sign in again.

        \(RemoteImportCommand.usage)
        """
    }

    static func run(_ command: String, _ options: Options) async throws {
        if command == "import", !options.string("from", default: "").isEmpty { return try await RemoteImportCommand.run(options) }
        let known: Set<String> = command == "export" ? ["output", "data-dir", "database", "assets-directory"] : ["data-dir", "database", "assets-directory"]
        let unknown = options.unknownFlags(known: known)
        guard unknown.isEmpty else { throw CLIError("unknown flag(s): \(unknown.map { "--" + $0 }.joined(separator: ", "))\n\n\(usage)") }
        guard options.positional.count == 1 else { throw CLIError("\(command) needs one \(command == "export" ? "container" : "DIR")\n\n\(usage)") }
        let dataDirectory = try DataDirectory(options)
        let store = try await dataDirectory.openStore(logger: .disabled)
        do {
            let assets = try AssetFileStore(directory: dataDirectory.assetsDirectory(options))
            if command == "export" {
                try await export(
                    options.positional[0], options: options, store: store, assets: assets, source: dataDirectory.isPostgres ? "postgres" : "sqlite")
            } else {
                try await load(options.positional[0], store: store, assets: assets, into: dataDirectory)
            }
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    private static func export(
        _ container: String, options: Options, store: any RecordStore & AccountStore, assets: AssetFileStore, source: String
    ) async throws {
        let output = options.string("output", default: "")
        guard !output.isEmpty else { throw CLIError("export needs --output DIR, a directory that does not exist yet\n\n\(usage)") }
        let directory = URL(fileURLWithPath: output, isDirectory: true).standardizedFileURL
        let manifest = try await ContainerExporter(store: store, accounts: store, assets: assets, source: source).export(container: container, to: directory)
        let counts = manifest.counts
        print(
            "exported \(container) to \(directory.path): \(counts.zones) zone(s), \(counts.records) record(s), \(counts.shares) share(s), \(counts.subscriptions) subscription(s), \(counts.users) account(s), \(counts.assets) asset(s) (\(counts.assetBytes) bytes)"
        )
    }

    private static func load(_ path: String, store: any RecordStore & AccountStore, assets: AssetFileStore, into dataDirectory: DataDirectory) async throws {
        let directory = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
        let summary = try await ContainerImporter(store: store, accounts: store, assets: assets).importDirectory(directory)
        let target = dataDirectory.isPostgres ? "PostgreSQL" : dataDirectory.url.path
        print(
            "imported \(summary.container) into \(target): \(summary.zones) zone(s), \(summary.records) record(s), \(summary.shares) share(s), \(summary.subscriptions) subscription(s), \(summary.assets) asset(s); \(summary.usersAdded) account(s) added, \(summary.usersKept) already here"
        )
    }
}
