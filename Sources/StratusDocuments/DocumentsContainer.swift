public import Foundation
public import StratusClient
public import StratusLogging
import StratusWire

/// A documents container: a local directory kept in sync with the user's private database.
///
/// Every regular file below the directory (any type, nested folders) is a document: one `Document`
/// record in the reserved zone `StratusDocuments` with its path, size, SHA-256, modification date and
/// its bytes as chunk assets. ``sync()`` uploads local changes (creations, edits, renames, moves,
/// deletions) and then applies the zone's changes; ``startWatching()`` does that on its own when
/// inotify reports a change, and rescans periodically. When two devices change a document before
/// seeing each other's change, the first one saved stays current and the other becomes a conflict
/// version on every device until ``resolveConflict(keeping:)``. The hidden `.stratus` folder (state,
/// temporary files, conflict copies) is never synced.
///
/// ```swift
/// let documents = try DocumentsContainer(directory: URL(fileURLWithPath: "/home/ann/Documents"), container: container)
/// try documents.coordinateWriting(at: "notes/todo.txt") { url in try Data("milk".utf8).write(to: url) }
/// try await documents.sync()
/// for version in try await documents.unresolvedConflictVersions(of: "notes/todo.txt") { print(version.device) }
/// ```
public actor DocumentsContainer {
    /// How the container syncs.
    public struct Configuration: Sendable {
        /// This device's name, recorded with each version (the host name by default).
        public var deviceName = ProcessInfo.processInfo.hostName
        /// Documents are stored as assets of at most this many bytes (8 MB): an edit re-sends only the
        /// chunks that changed, and no asset comes near the server's upload limit.
        public var chunkSize: Int64 = 8 << 20
        /// Download remote documents during ``sync()``; when `false` they stay placeholders until ``download(_:progress:)``.
        public var downloadsEagerly = true
        /// The state database; `<directory>/.stratus/state.sqlite` by default.
        public var stateURL: URL?
        /// How often ``startWatching()`` rescans even without inotify events; `nil` turns it off.
        public var rescanInterval: Duration? = .seconds(30)
        /// How long ``startWatching()`` waits after an event before syncing, to coalesce bursts.
        public var debounce: Duration = .milliseconds(300)
        /// Whether ``startWatching()`` also syncs when the server pushes a change of the documents zone
        /// (a zone subscription and `Container.notifications()`, the web-courier long poll).
        public var observesPushes = false
        /// How pushes are received when ``observesPushes`` is on.
        public var notifications = NotificationConfiguration()
        /// The largest chunk accepted in a record from the server (64 MB, 8× the default chunk size;
        /// the server's asset limit is 50 MB). A record with larger chunks is skipped with a warning:
        /// a chunk is held in memory while it is downloaded and checked.
        public var maximumChunkSize: Int64 = 64 << 20
        /// How many transfers run at once: `records/modify` requests (each uploads its assets one after
        /// another) and document downloads.
        public var concurrentTransfers = 4
        /// The transport of asset downloads; a shared `DefaultTransport` by default.
        public var transport: (any HTTPTransport)?
        /// The deadline of one chunk download.
        public var downloadTimeout: Duration = .seconds(300)
        /// Called with everything a sync moves or decides, as it happens.
        public var onActivity: (@Sendable (DocumentsActivity) -> Void)?
        /// Where sync problems are logged.
        public var logger: Logger = .disabled
        /// Opens the folder's state for reading only: no lock is taken (another process may own the folder,
        /// see ``DocumentsError/Code/folderInUse``), nothing on disk or on the server changes; ``sync()``,
        /// downloads, resolutions, coordinated writes and watching throw ``DocumentsError/Code/readOnly``.
        /// For tools that show what the owner last synced (`stratus docs conflicts` beside a running watcher).
        public var opensReadOnly = false

        /// The defaults.
        public init() {}
    }

    /// How far an on-demand download is.
    public struct DownloadProgress: Sendable, Hashable {
        /// Bytes in place so far.
        public var completedBytes: Int64
        /// The document's size.
        public var totalBytes: Int64
        /// `completedBytes / totalBytes` (1 for an empty document).
        public var fractionCompleted: Double { totalBytes == 0 ? 1 : Double(completedBytes) / Double(totalBytes) }
    }

    /// The synced directory.
    public nonisolated let directory: URL
    /// The per-path locks the app and the sync engine share.
    public nonisolated let coordinator = FileCoordinator()
    /// Every file-system action on a document path goes through it (never outside the directory).
    nonisolated let tree: DocumentTree
    let configuration: Configuration
    let container: Container
    let database: Database
    let state: LocalDocumentState
    let temporaryFolder: URL
    let versionsFolder: URL
    /// Rename hints from inotify (old path → new path), consumed by the next scan.
    var moveHints: [String: String] = [:]
    var lastOperation: Task<Void, Never>?
    /// Set by ``close()``: no operation starts any more.
    var isClosed = false
    /// The watcher and the syncs it runs (``startWatching()``).
    var watch = FolderWatch()
    /// Whether this fetch skipped a change (the local file changed meanwhile), so the token must not move.
    var tokenHeld = false
    /// Content this fetch downloaded ahead, by record and content hash.
    var prefetched: [PrefetchKey: Result<FetchedContent, any Error>] = [:]
    /// Set when a pass of this sync found documents the server no longer has (made pending): another
    /// upload pass follows at once, so one sync puts them back.
    var needsAnotherPass = false
    /// The folder's lock; `nil` when opened read-only.
    let lock: FolderLock?

    /// Opens (or creates) a documents container over `directory`, and takes the folder's lock.
    ///
    /// One container (in one process) owns a folder at a time; a second is refused until the first is
    /// closed or its process ends. Leftover temporary files of an interrupted download are deleted; the
    /// old files they were to replace are untouched.
    ///
    /// - Parameters:
    ///   - directory: The local folder to keep in sync (created if missing).
    ///   - container: The container whose private database holds the documents.
    ///   - configuration: Device name, chunk size, download policy, watching intervals.
    /// - Throws: ``DocumentsError/Code/folderInUse`` when another container or process owns the folder;
    ///   ``DocumentsError`` when the folder or the state database cannot be created (or, read-only, does not exist).
    public init(directory: URL, container: Container, configuration: Configuration = Configuration()) throws {
        precondition(configuration.chunkSize > 0, "DocumentsContainer.Configuration.chunkSize must be positive, not \(configuration.chunkSize)")
        precondition(
            configuration.concurrentTransfers > 0,
            "DocumentsContainer.Configuration.concurrentTransfers must be positive, not \(configuration.concurrentTransfers)")
        self.directory = directory.standardizedFileURL
        self.tree = DocumentTree(root: self.directory)
        self.configuration = configuration
        self.container = container
        self.database = container.privateCloudDatabase
        let hidden = Self.hiddenFolder(of: self.directory)
        temporaryFolder = hidden.appendingPathComponent("tmp", isDirectory: true)
        versionsFolder = hidden.appendingPathComponent("versions", isDirectory: true)
        let stateURL = configuration.stateURL ?? hidden.appendingPathComponent("state.sqlite")
        if configuration.opensReadOnly {
            lock = nil
            state = try LocalDocumentState(path: stateURL.path, readOnly: true)
            return
        }
        do {
            try FileManager.default.createDirectory(at: hidden, withIntermediateDirectories: true)
        } catch {
            throw DocumentsError(.fileSystem, "cannot create '\(hidden.path)': \(error)", underlying: error)
        }
        // The lock first: emptying `tmp/` under another owner would delete its downloads in flight.
        let lock = try FolderLock(in: hidden, folder: self.directory)
        self.lock = lock
        do {
            try? FileManager.default.removeItem(at: temporaryFolder)
            for folder in [temporaryFolder, versionsFolder] {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            }
        } catch {
            throw DocumentsError(.fileSystem, "cannot create '\(hidden.path)': \(error)", underlying: error)
        }
        state = try LocalDocumentState(path: stateURL.path)
        try state.setMeta("downloadsEagerly", configuration.downloadsEagerly ? "1" : "0")
        VersionCopies.renameLegacyCopies(in: versionsFolder, versions: try state.versions())
    }

    /// The download policy (``Configuration/downloadsEagerly``) a folder was last opened with, so a tool
    /// can keep it (`stratus docs sync --on-demand` once, later commands stay on demand); `nil` for a
    /// folder never synced.
    ///
    /// - Parameters:
    ///   - directory: The synced folder.
    ///   - stateURL: The state database, when not the default (``Configuration/stateURL``).
    /// - Returns: Whether it downloaded eagerly, or `nil`.
    public static func lastDownloadsEagerly(in directory: URL, stateURL: URL? = nil) -> Bool? {
        let path = (stateURL ?? hiddenFolder(of: directory.standardizedFileURL).appendingPathComponent("state.sqlite")).path
        guard let state = try? LocalDocumentState(path: path, readOnly: true) else { return nil }
        defer { state.close() }
        return (try? state.meta("downloadsEagerly")).flatMap { $0 }.map { $0 == "1" }
    }

    /// The process that owns a folder (holds its lock), if one does.
    ///
    /// - Parameter directory: The synced folder.
    /// - Returns: The owner's process ID, or `nil` when no container has the folder open.
    public static func owningProcess(of directory: URL) -> Int32? {
        FolderLock.holder(in: hiddenFolder(of: directory.standardizedFileURL))
    }

    static func hiddenFolder(of directory: URL) -> URL {
        directory.appendingPathComponent(DocumentPath.reservedFolder, isDirectory: true)
    }

    /// Throws ``DocumentsError/Code/readOnly`` for a container opened with ``Configuration/opensReadOnly``.
    nonisolated func requireWritable(_ what: String) throws {
        guard configuration.opensReadOnly else { return }
        throw DocumentsError(.readOnly, "this container was opened read-only: it cannot \(what)")
    }

    /// Every document this device knows, downloaded or placeholder, sorted by path.
    ///
    /// - Returns: The documents as of the last sync.
    /// - Throws: ``DocumentsError`` when the state database fails.
    public func documents() throws -> [DocumentInfo] {
        try state.documents().map(Self.info)
    }

    /// Stops watching, waits for the operation in flight (a sync, a download, a resolution) to end,
    /// then closes the state database and releases the folder (another container may open it).
    ///
    /// Afterwards ``sync()`` and the other operations throw ``DocumentsError/Code/closed``; closing
    /// again does nothing. The folder is never released while this container still writes in it.
    public func close() async {
        guard !isClosed else { return }
        isClosed = true
        stopWatching()
        await lastOperation?.value
        state.close()
        lock?.release()
    }

    // MARK: Watching

    /// Syncs on its own: after inotify reports a change (debounced), every ``Configuration/rescanInterval``,
    /// and — with ``Configuration/observesPushes`` — when the server pushes a change of the documents zone.
    ///
    /// Call ``stopWatching()`` (or ``close()``) to stop. Errors of these syncs are logged and retried at
    /// the next event or rescan.
    ///
    /// ```swift
    /// try await documents.startWatching()
    /// ```
    ///
    /// - Throws: ``DocumentsError/Code/watcher`` when inotify cannot be set up; `StratusError` when the
    ///   zone subscription cannot be saved; ``DocumentsError/Code/readOnly`` for a read-only container.
    public func startWatching() async throws {
        try requireWritable("watch")
        guard !watch.isWatching else { return }
        let generation = try watch.start { generation in
            try DirectoryWatcher(directory: directory) { [weak self] events in
                guard let self else { return }
                Task { await self.noticed(events, of: generation) }
            }
        }
        if configuration.observesPushes {
            do {
                try await listenToPushes(of: generation)
            } catch {
                if watch.isCurrent(generation) { stopWatching() }  // not a watch started while this one awaited
                throw error
            }
        }
        if let interval = configuration.rescanInterval {
            watch.rescan(every: interval, of: generation) { [weak self] in
                guard let self else { return false }
                await self.syncLogged()
                return true
            }
        }
    }

    /// Stops the watcher, the periodic rescan, the push listener and a debounced sync still waiting.
    public func stopWatching() {
        watch.stop()
    }

    private func noticed(_ events: [DirectoryWatcher.Event], of generation: FolderWatch.Generation) {
        guard watch.isCurrent(generation) else { return }  // read by a watcher stopped since
        for case .moved(let from, let to) in events { moveHints[from] = to }
        watch.notice(debounce: configuration.debounce, of: generation) { [weak self] generation in
            guard let self, await self.settleWatch(generation) else { return }
            await self.syncLogged()
        }
    }

    private func settleWatch(_ generation: FolderWatch.Generation) -> Bool { watch.settle(generation) }

    /// Subscribes to the documents zone and syncs (debounced) on each of its pushes.
    private func listenToPushes(of generation: FolderWatch.Generation) async throws {
        _ = try await serialized { try await self.ensureZone() }
        let zoneID = DocumentRecord.zoneID()
        try await database.save(Subscription(subscriptionID: DocumentRecord.zoneName, subscriptionType: .zone, zoneID: zoneID))
        let notifications = container.notifications(configuration: configuration.notifications)
        watch.listen(to: notifications, zoneName: zoneID.zoneName, logger: configuration.logger, of: generation) { [weak self] generation in
            await self?.noticed([], of: generation)
        }
    }

    private func syncLogged() async {
        do {
            try await sync()
        } catch let error as DocumentsError where error.code == .closed {
            // A watcher's sync that lost the race with close(): nothing to report.
        } catch {
            configuration.logger.warning("documents sync failed: \(error)")
        }
    }

    // MARK: Coordinated access

    /// Reads a document while the sync engine cannot replace it.
    ///
    /// ```swift
    /// let text = try documents.coordinateReading(at: "notes/todo.txt") { try String(contentsOf: $0, encoding: .utf8) }
    /// ```
    ///
    /// - Parameters:
    ///   - path: The document path, relative to ``directory``.
    ///   - body: Reads the file at the URL it is given.
    /// - Returns: What `body` returns.
    /// - Throws: ``DocumentsError/Code/invalidPath``, or what `body` throws.
    public nonisolated func coordinateReading<T>(at path: String, _ body: (URL) throws -> T) throws -> T {
        // NB: the URL is the app's to read; the engine itself reads through `tree`, never through a link.
        let path = try DocumentPath.validate(path)
        return try coordinator.read(path) { try body(DocumentPath.url(path, in: directory)) }
    }

    /// Writes a document atomically: `body` writes a temporary file, which then replaces the document with `rename(2)`.
    ///
    /// Readers (and the sync engine) see the old bytes or the new ones, never a partial file.
    ///
    /// ```swift
    /// try documents.coordinateWriting(at: "notes/todo.txt") { url in try Data("milk".utf8).write(to: url) }
    /// ```
    ///
    /// - Parameters:
    ///   - path: The document path; missing folders are created.
    ///   - body: Writes the complete new content to the URL it is given.
    /// - Throws: ``DocumentsError``: ``DocumentsError/Code/invalidPath``, ``DocumentsError/Code/pathBlocked`` (a symbolic
    ///   link or a file on the way, a folder at the path: nothing is written through a link), a file-system failure;
    ///   or what `body` throws (``DocumentsError/Code/readOnly`` for a read-only container). The document is then unchanged.
    public nonisolated func coordinateWriting(at path: String, _ body: (URL) throws -> Void) throws {
        try requireWritable("write documents")
        let path = try DocumentPath.validate(path)
        let temporary = temporaryFolder.appendingPathComponent("write-" + UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: temporary) }
        try body(temporary)
        try coordinator.write(path) { try tree.install(temporary, at: path, replacing: .anyFile) }
    }

    /// Renames `temporary` over `target`, a file in `.stratus` (atomic on one file system).
    static func replace(_ target: URL, with temporary: URL, path: String) throws {
        guard rename(temporary.path, target.path) == 0 else {
            throw DocumentsError(.fileSystem, "cannot move the new content into place: \(String(cString: strerror(errno)))", path: path)
        }
    }

    // MARK: Helpers

    /// Runs operations that touch the directory and the state one at a time (actor methods interleave at `await`).
    ///
    /// - Throws: ``DocumentsError/Code/closed`` once ``close()`` has begun; what `body` throws.
    func serialized<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        guard !isClosed else { throw DocumentsError(.closed, "this documents container was closed: open a new one") }
        let previous = lastOperation
        let task = Task<T, any Error> {
            await previous?.value
            return try await body()
        }
        lastOperation = Task { _ = try? await task.value }
        return try await task.value
    }

    func announce(_ activity: DocumentsActivity, into report: inout DocumentsSyncReport) {
        report.activities.append(activity)
        configuration.onActivity?(activity)
    }

    static func info(_ document: LocalDocument) -> DocumentInfo {
        DocumentInfo(
            id: document.record.recordName, path: document.path, size: document.record.size, contentHash: document.record.contentHash,
            modificationDate: document.record.modified, device: document.record.device, isDownloaded: document.downloaded)
    }

    func url(_ path: String) -> URL { DocumentPath.url(path, in: directory) }

    /// A record from the server, checked (``DocumentRecord/init(_:maximumChunkSize:)``).
    nonisolated func decoded(_ record: StratusClient.Record) throws -> DocumentRecord {
        try DocumentRecord(record, maximumChunkSize: configuration.maximumChunkSize)
    }

    /// Downloads content without the actor, so several run at once.
    var fetcher: ContentFetcher {
        ContentFetcher(
            tree: tree, temporaryFolder: temporaryFolder, coordinator: coordinator, timeout: configuration.downloadTimeout,
            transport: configuration.transport)
    }

    /// Copies chunks out for uploads.
    var chunks: ChunkSnapshots { ChunkSnapshots(tree: tree, coordinator: coordinator, temporaryFolder: temporaryFolder) }
}

/// A prefetched download is for one record at one content hash.
struct PrefetchKey: Hashable, Sendable {
    var recordName: String
    var contentHash: String

    init(_ record: DocumentRecord) {
        recordName = record.recordName
        contentHash = record.contentHash
    }
}
