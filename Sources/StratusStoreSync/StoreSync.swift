import Foundation
public import StratusClient
import StratusLogging
public import StratusStore
public import StratusSync

/// Syncs a `StratusStore` container's entities with a CloudKit database, with no delegate code:
/// local changes are read from the store's persistent history, remote ones are applied in a
/// background context and merged into the view context.
///
/// Each synced entity needs a string attribute for its record name (`syncID` unless
/// ``SyncConfiguration/syncIdKey`` says otherwise) and a date attribute for the server's
/// modification date (`syncModified`, or ``SyncConfiguration/changeDateKey``).
///
/// ```swift
/// let sync = try StoreSync(store: container, entities: [NoteSync.self, FolderSync.self], configuration: SyncConfiguration(
///     container: cloud, entityTypes: [], deviceID: deviceID, bookkeepingPath: supportDirectory + "/sync.sqlite"))
/// try await sync.start()            // catch up, then follow local saves and pushes
/// // … the app saves its contexts as usual; other devices' changes appear in container.viewContext
/// ```
///
/// Sync's own writes carry ``transactionAuthor``, so they are never uploaded again. The history token
/// of the last captured transaction is kept next to the bookkeeping file (`<bookkeepingPath>.history`).
public actor StoreSync {
    /// The transaction author of every write sync makes to the store.
    public static let transactionAuthor = "StratusStoreSync"

    /// The sync controller (status, pause/resume, push, conflict policy, debug journal).
    public nonisolated let controller: SyncController
    /// The store.
    public nonisolated let store: PersistentContainer

    let bridge: StoreBridge
    let delegate: StoreSyncDelegate
    let tokenURL: URL
    let logger: Logger
    var historyToken: HistoryToken?
    /// How many saves and deletions the captures have queued for upload since this value was made.
    public internal(set) var capturedChanges = 0
    var tasks: [Task<Void, Never>] = []
    var capturing = false
    var captureWaiters: [CheckedContinuation<Void, Never>] = []

    /// The two attributes every synced entity needs, to add to its description in the model: the
    /// record name (optional string) and the server's modification date (optional date).
    ///
    /// ```swift
    /// EntityDescription("Note", attributes: [AttributeDescription("title", .string)] + StoreSync.syncAttributes())
    /// ```
    ///
    /// - Parameters:
    ///   - syncIdKey: The record-name attribute (``SyncConfiguration/syncIdKey``).
    ///   - changeDateKey: The modification-date attribute (``SyncConfiguration/changeDateKey``).
    /// - Returns: The attribute descriptions.
    public static func syncAttributes(syncIdKey: String = "syncID", changeDateKey: String = "syncModified") -> [AttributeDescription] {
        [AttributeDescription(syncIdKey, .string, isOptional: true), AttributeDescription(changeDateKey, .date, isOptional: true)]
    }

    /// Checks the mappings against the store's model and makes the controller.
    ///
    /// - Parameters:
    ///   - store: The loaded container.
    ///   - entities: The synced entities' mappings (relationships must point to synced entities).
    ///   - configuration: The sync setup; its `entityTypes` are replaced by the mappings', and its
    ///     `syncIdKey`/`changeDateKey` default to `syncID`/`syncModified`.
    /// - Throws: ``SyncError`` naming a missing entity, attribute or relationship, or what ``SyncController`` throws.
    public init(store: PersistentContainer, entities: [any StoreEntityMapping.Type], configuration: SyncConfiguration) throws {
        var configuration = configuration
        configuration.syncIdKey = configuration.syncIdKey ?? "syncID"
        configuration.changeDateKey = configuration.changeDateKey ?? "syncModified"
        configuration.entityTypes = entities.map { $0.objectType as any SyncableEntity.Type }
        bridge = try StoreBridge(
            container: store, mappings: entities, syncIdKey: configuration.syncIdKey ?? "syncID",
            changeDateKey: configuration.changeDateKey ?? "syncModified", logger: configuration.logger)
        delegate = StoreSyncDelegate(bridge: bridge)
        controller = try SyncController(configuration: configuration, delegate: delegate)
        self.store = store
        logger = configuration.logger
        tokenURL = URL(fileURLWithPath: configuration.bookkeepingPath + ".history")
    }

    /// Starts syncing: uploads what changed since the last run, follows every root save of the
    /// store from then on, and fetches remote changes — on each push with `push` (the default), else
    /// when ``sync()`` is called. Sets the view context's `automaticallyMergesChangesFromParent`.
    ///
    /// - Parameters:
    ///   - push: Whether pushes trigger fetches (``SyncController/startPush(notifications:listeningTimeout:)``).
    ///   - notifications: How the web courier is polled.
    /// - Throws: A store error, or a ``StratusError`` when the server cannot be reached (local changes stay queued).
    public func start(push: Bool = true, notifications: NotificationConfiguration = NotificationConfiguration()) async throws {
        if tasks.isEmpty {
            try await followStore()
            try await captureLocalChanges()
        }
        // Push is started again by a later start() if the server could not be reached this time.
        if push {
            if await !controller.isPushing { try await controller.startPush(notifications: notifications) }
        } else {
            try await controller.sync()
        }
    }

    /// Builds the sync-ID index, reads the history token and follows every root save of the store.
    private func followStore() async throws {
        store.viewContext.automaticallyMergesChangesFromParent = true
        try await bridge.buildIndex()
        historyToken = try readToken()
        let saves = store.rootContext.notifications
        let (triggers, trigger) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        tasks.append(
            Task {
                for await notification in saves where notification.kind == .didSave { trigger.yield() }
                trigger.finish()
            })
        tasks.append(
            Task { [weak self] in
                for await _ in triggers {
                    do {
                        try await self?.captureLocalChanges()
                    } catch {
                        self?.logger.error("could not capture local changes: \(error)")
                    }
                }
            })
    }

    /// Stops following the store and pushes, and closes the controller's bookkeeping.
    ///
    /// Nothing in flight is lost: a capture cut short is read from the history again at the next
    /// start, uploads wait in the durable outbox, and values a conflict resolution produced that the
    /// store has not received yet are written at the next start (their markers are in the
    /// bookkeeping). The server dates of finished uploads are written back before it returns.
    ///
    /// - Throws: An SQLite error from closing the bookkeeping.
    public func stop() async throws {
        let running = tasks
        for task in running { task.cancel() }
        tasks = []
        for task in running { await task.value }
        try await controller.close()
        await delegate.flushUploaded()
    }

    /// The conflicts sync resolves from now on — every one that discarded a value, including a local
    /// edit a remote deletion won over (``SyncConflict/serverRecordDeleted``) — so the app can tell
    /// the user what was lost.
    ///
    /// ```swift
    /// for await conflict in sync.conflicts() where conflict.serverRecordDeleted {
    ///     show("\(conflict.versions.recordName) was deleted on another device; your edit was dropped")
    /// }
    /// ```
    ///
    /// - Returns: A stream that ends when the caller stops iterating.
    public nonisolated func conflicts() -> AsyncStream<SyncConflict> {
        delegate.conflicts()
    }

    /// Uploads local changes, then fetches and applies remote ones; returns with everything in the
    /// store (merged values and the server dates of the uploads included).
    ///
    /// - Throws: What ``captureLocalChanges()`` and ``SyncController/sync()`` throw.
    public func sync() async throws {
        try await captureLocalChanges()
        try await controller.sync()
        await delegate.flushUploaded()
    }

    /// Reads the persistent history since the last capture and uploads the synced changes it holds
    /// (runs by itself after every root save once started; call it to wait for one).
    ///
    /// - Returns: How many saves and deletions were queued for upload.
    /// - Throws: A store error, or an outbox error (the history is read again next time).
    @discardableResult
    public func captureLocalChanges() async throws -> Int {
        if capturing {
            await withCheckedContinuation { captureWaiters.append($0) }
        } else {
            capturing = true
        }
        defer {
            if captureWaiters.isEmpty {
                capturing = false
            } else {
                captureWaiters.removeFirst().resume()
            }
        }
        return try await capturePass()
    }

    /// Returns once the local changes saved so far are captured and what that set off in the
    /// background (uploads, a follow-up sync) has finished.
    ///
    /// - Throws: What ``captureLocalChanges()`` throws.
    public func waitForIdle() async throws {
        try await captureLocalChanges()
        await controller.waitForIdle()
        await delegate.flushUploaded()
    }

    func readToken() throws -> HistoryToken? {
        guard let data = try? Data(contentsOf: tokenURL) else { return nil }
        return try JSONDecoder().decode(HistoryToken.self, from: data)
    }

    func writeToken(_ token: HistoryToken) throws {
        historyToken = token
        try JSONEncoder().encode(token).write(to: tokenURL, options: .atomic)
    }
}
