public import Foundation

/// Loads an export directory (``ExportFormat``) into a store that does not hold its container yet.
///
/// The directory is checked before anything is written (``ExportDirectory``), accounts are
/// loaded in one accounts transaction, then the container's schema, zones, records, shares,
/// short GUIDs, subscriptions and assets in one records transaction: it lands whole or not at
/// all. Records keep their change tags, change sequences and authors; each zone continues after
/// the last sequence its source handed out. Sync tokens and sessions do not carry over (clients
/// refetch, users sign in again); see Documentation/0020-export-format.md.
///
/// ```swift
/// func importNotes(into store: any RecordStore & AccountStore, assetsDirectory: URL) async throws {
///     let importer = ContainerImporter(store: store, accounts: store, assets: try AssetFileStore(directory: assetsDirectory))
///     let summary = try await importer.importDirectory(URL(fileURLWithPath: "notes-export"))
///     print("\(summary.records) records")
/// }
/// ```
public struct ContainerImporter: Sendable {
    let store: any RecordStore
    let accounts: (any AccountStore)?
    let assets: any AssetBlobStore

    /// What an import loaded.
    public struct Summary: Sendable {
        /// The container imported.
        public var container: String
        /// Accounts added.
        public var usersAdded: Int
        /// Accounts the target already had (the same user record name and e-mail address).
        public var usersKept: Int
        /// API tokens and keys added.
        public var credentialsAdded: Int
        /// Zones made.
        public var zones: Int
        /// Records loaded.
        public var records: Int
        /// Shares loaded.
        public var shares: Int
        /// Subscriptions loaded.
        public var subscriptions: Int
        /// Asset contents the export carried.
        public var assets: Int
    }

    /// Creates an importer.
    ///
    /// - Parameters:
    ///   - store: Where the records go.
    ///   - accounts: Where accounts go; an export with accounts is refused when `nil`.
    ///   - assets: Where the asset bytes go.
    public init(store: any RecordStore, accounts: (any AccountStore)?, assets: any AssetBlobStore) {
        self.store = store
        self.accounts = accounts
        self.assets = assets
    }

    /// Checks and loads the export in `directory`.
    ///
    /// - Parameter directory: An export directory written by ``ContainerExporter``.
    /// - Returns: What was loaded.
    /// - Throws: ``ExportError`` naming the first problem (nothing of the records is written
    ///   then), or a store error.
    public func importDirectory(_ directory: URL) async throws -> Summary {
        let export = try ExportDirectory(directory)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let container = export.manifest.container
        guard !(try await store.read { try $0.containerExists(container) }) else {
            throw ExportError("container '\(container)' already exists here; import into a store without it (nothing was imported)")
        }
        var accountsLoaded = AccountsImport.Loaded()
        if let accounts {
            accountsLoaded = try await accounts.writeAccounts { tx in try AccountsImport.load(export, into: tx) }
        } else if export.manifest.counts.users + export.manifest.counts.apiTokens + export.manifest.counts.serverKeys > 0 {
            throw ExportError("this store keeps no accounts, and the export has some")
        }
        let assets = self.assets
        let loaded: DataImport.Loaded
        do {
            loaded = try await store.write { tx in try DataImport(export, tx: tx, assets: assets, now: now).run() }
        } catch {
            await removeUnrecorded(Array(export.assets.keys))
            throw error
        }
        return Summary(
            container: container, usersAdded: accountsLoaded.usersAdded, usersKept: accountsLoaded.usersKept,
            credentialsAdded: accountsLoaded.credentialsAdded, zones: loaded.zones, records: loaded.records, shares: loaded.shares,
            subscriptions: loaded.subscriptions, assets: export.assets.count)
    }

    /// After a failed import: removes asset files the store has no row for (the import installed
    /// them, and its transaction rolled back).
    private func removeUnrecorded(_ keys: [String]) async {
        for key in keys.sorted() {
            guard (try? await store.read({ try $0.asset(key: key) })) == .some(nil) else { continue }
            if let trashed = try? assets.trash(key: key) { assets.empty([trashed]) }
        }
    }
}
