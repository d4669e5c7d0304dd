public import Foundation
import StratusCrypto
import StratusWire

/// Writes one container, as one store snapshot holds it, into a directory in the portable
/// export format (``ExportFormat``, Documentation/0020-export-format.md).
///
/// Records are written with their latest version only (tombstones and earlier versions are the
/// change history the format collapses), each with its change tag and change sequence, so an
/// import gives clients the change tags they hold. Accounts are read in a snapshot of their own,
/// just before the records'. The manifest is written last: a directory without one is an export
/// that did not finish, and an import refuses it.
///
/// ```swift
/// func exportNotes(from store: any RecordStore & AccountStore, assetsDirectory: URL) async throws {
///     let exporter = ContainerExporter(store: store, accounts: store, assets: try AssetFileStore(directory: assetsDirectory), source: "sqlite")
///     let manifest = try await exporter.export(container: "iCloud.com.example.Notes", to: URL(fileURLWithPath: "notes-export"))
///     print(manifest.counts.records)
/// }
/// ```
public struct ContainerExporter: Sendable {
    let store: any RecordStore
    let accounts: (any AccountStore)?
    let assets: any AssetBlobStore
    let source: String

    /// Creates an exporter.
    ///
    /// - Parameters:
    ///   - store: The records.
    ///   - accounts: The accounts (users, API tokens, keys); none exported when `nil`.
    ///   - assets: Where the asset bytes are.
    ///   - source: The back end's name, recorded in the manifest (`sqlite`, `postgres`).
    public init(store: any RecordStore, accounts: (any AccountStore)?, assets: any AssetBlobStore, source: String) {
        self.store = store
        self.accounts = accounts
        self.assets = assets
        self.source = source
    }

    /// Exports `container` into `directory`, which must not exist or be empty.
    ///
    /// - Parameters:
    ///   - container: The container identifier.
    ///   - directory: Where to write; created with mode 0700.
    /// - Returns: The manifest written.
    /// - Throws: ``ExportError`` (no such container, a non-empty directory, a missing asset), or a store error.
    public func export(container: String, to directory: URL) async throws -> ExportManifest {
        try Self.prepare(directory)
        let exportedAt = ISO8601DateFormatter().string(from: Date())
        var counts = ExportManifest.Counts()
        var files: [ExportManifest.File] = []
        if let accounts {
            let written = try await accounts.readAccounts { tx in try AccountsExport.write(container: container, from: tx, to: directory) }
            files += written.files
            (counts.users, counts.apiTokens, counts.serverKeys) = (written.users, written.apiTokens, written.serverKeys)
        } else {
            for name in [ExportFormat.usersFile, ExportFormat.apiTokensFile, ExportFormat.serverKeysFile] {
                files.append(try ExportFileWriter(name, in: directory).finish())
            }
        }
        let assets = self.assets
        let written = try await store.read { tx in
            let writer = try DataExport(container: container, tx: tx, directory: directory, assets: assets)
            return try writer.run()
        }
        files += written.files
        counts.zones = written.counts.zones
        counts.records = written.counts.records
        counts.shares = written.counts.shares
        counts.shortGUIDs = written.counts.shortGUIDs
        counts.subscriptions = written.counts.subscriptions
        counts.assets = written.counts.assets
        counts.assetBytes = written.counts.assetBytes
        let manifest = ExportManifest(
            format: ExportFormat.name, version: ExportFormat.version, container: container, exportedAt: exportedAt, source: source,
            counts: counts, files: files.sorted { $0.name < $1.name })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let manifestWriter = try ExportFileWriter(ExportFormat.manifestFile, in: directory)
        manifestWriter.append(try encoder.encode(manifest))
        _ = try manifestWriter.finish()
        return manifest
    }

    /// Creates the directory (0700), or accepts an empty one.
    static func prepare(_ directory: URL) throws {
        let manager = FileManager.default
        if manager.fileExists(atPath: directory.path) {
            guard (try manager.contentsOfDirectory(atPath: directory.path)).isEmpty else {
                throw ExportError("\(directory.path) is not empty; export into a new directory")
            }
            return
        }
        try manager.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
}

/// The account files of an export: every user, and the container's API tokens and keys.
enum AccountsExport {
    struct Written: Sendable {
        var files: [ExportManifest.File]
        var users: Int
        var apiTokens: Int
        var serverKeys: Int
    }

    static func write(container: String, from tx: any AccountStoreReader, to directory: URL) throws -> Written {
        let users = try ExportFileWriter(ExportFormat.usersFile, in: directory)
        for user in try tx.users().sorted(by: { $0.userRecordName < $1.userRecordName }) {
            try users.writeLine(
                Exported.User(
                    userRecordName: user.userRecordName, emailAddress: user.emailAddress, nameComponents: user.nameComponents,
                    isDiscoverable: user.isDiscoverable, passwordHash: user.passwordHash, createdAt: user.createdAt,
                    emailVerifiedAt: user.emailVerifiedAt, disabledAt: user.disabledAt))
        }
        let tokens = try ExportFileWriter(ExportFormat.apiTokensFile, in: directory)
        for token in try tx.apiTokens(container: container).sorted(by: { $0.tokenHash < $1.tokenHash }) {
            try tokens.writeLine(
                Exported.APIToken(
                    tokenHash: token.tokenHash, prefix: token.prefix, environment: token.environment, name: token.name,
                    signInCallbackURL: token.signInCallbackURL, allowedOrigins: token.allowedOrigins, createdAt: token.createdAt,
                    revokedAt: token.revokedAt))
        }
        let keys = try ExportFileWriter(ExportFormat.serverKeysFile, in: directory)
        for key in try tx.serverKeys(container: container).sorted(by: { $0.keyID < $1.keyID }) {
            try keys.writeLine(
                Exported.ServerKey(
                    keyID: key.keyID, environment: key.environment, name: key.name, publicKeyPEM: key.publicKeyPEM,
                    createdAt: key.createdAt, revokedAt: key.revokedAt))
        }
        return Written(
            files: [try users.finish(), try tokens.finish(), try keys.finish()], users: users.count, apiTokens: tokens.count,
            serverKeys: keys.count)
    }
}
