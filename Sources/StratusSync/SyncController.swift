import Foundation
public import StratusClient
import StratusLogging
public import StratusWire
import Synchronization

/// Syncs a local store's entities with a CloudKit database: uploads through a durable outbox,
/// fetches the zone's change feed, resolves conflicts by policy. With `databaseScope: .public` it
/// queries by modification time and carries deletions in DeleteQueue records instead.
///
/// ```swift
/// let sync = try SyncController(configuration: SyncConfiguration(
///     container: container, entityTypes: [Note.self, Folder.self],
///     syncIdKey: "syncID", changeDateKey: "modified", deviceID: deviceID,
///     bookkeepingPath: supportDirectory + "/sync.sqlite"), delegate: store)
/// sync.makeCurrent()
/// try await note.cloud.save()       // upload (queued durably first)
/// try await sync.sync()             // upload what is pending, then fetch what changed
/// ```
///
/// The session's state lives in ``SyncSessionStateMachine`` (pure); this actor does the I/O.
public actor SyncController {
    /// The configuration.
    public nonisolated let configuration: SyncConfiguration
    /// The local store's side.
    public nonisolated let delegate: any SyncDelegate
    /// The zone every record of the app lives in.
    public nonisolated let zoneID: ZoneID

    let bookkeeping: SyncBookkeeping
    let descriptions: [String: EntityDescription]
    var logger: Logger
    var machine = SyncSessionStateMachine()
    /// Server time minus device time, as last observed (kept in the bookkeeping across launches);
    /// corrects local edit times.
    var skew: TimeInterval = 0
    /// The skew as last written to the bookkeeping.
    var storedSkew: TimeInterval = 0
    var drainTask: Task<Void, Never>?
    var reconnectTask: Task<Void, Never>?
    /// A sync started in the background after a drain found a record gone (the fetch decides its fate).
    var followUpTask: Task<Void, Never>?
    /// Fetches run one at a time (FIFO), so two syncs never deliver the same changes twice.
    var fetching = false
    var fetchWaiters: [CheckedContinuation<Void, Never>] = []
    var drainError: (any Error)?
    var inFlightSeq: Int64?
    /// What became of each outbox entry, by sequence number, for the `save()` waiting on it.
    var outcomes: [Int64: Result<StratusClient.Record?, SyncError>] = [:]
    /// Entities given to `save()`, by record name, until their upload finishes.
    var liveEntities: [String: any SyncableEntity] = [:]
    /// Bumped on each base written by an upload, so an older fetched batch cannot overwrite it.
    var generation = 0
    var baseGenerations: [String: Int] = [:]
    /// Record names a reference pass could not resolve (collected per record during a fetch).
    var unresolvedTargets: [String] = []
    /// Placeholders the delegate handed out (they stay alive in the entities that show them).
    var placeholders: [ObjectIdentifier: any SyncableEntity] = [:]
    var statusContinuations: [UUID: AsyncStream<SyncStatus>.Continuation] = [:]
    /// Assets being uploaded, by record name and asset field: the bytes' digest and the temporary file.
    var assetUploads: [String: [String: (digest: String, file: URL)]] = [:]
    /// The courier listener, the sync worker and the catch-up of push (``startPush(notifications:listeningTimeout:)``).
    var pushTasks: [Task<Void, Never>] = []
    /// Set when the courier registered again after a reconnection: the next push-triggered sync saves the subscriptions first.
    var pendingResubscribe = false

    /// The record field holding a weak entity's `DELETE_SELF` reference to its owner.
    public static let ownerField = "stratusOwner"

    /// Creates a controller, checking every entity type's keys and opening the bookkeeping file.
    ///
    /// - Parameters:
    ///   - configuration: The setup.
    ///   - delegate: The local store's side.
    /// - Throws: ``SyncError`` with ``SyncError/Code/missingKey`` naming a type that has neither its own
    ///   nor a global `syncIdKey`/`changeDateKey`; ``SyncError/Code/unsupported`` for the shared database;
    ///   an SQLite error when the bookkeeping file cannot be opened.
    public init(configuration: SyncConfiguration, delegate: any SyncDelegate) throws {
        guard configuration.databaseScope != .shared else {
            throw SyncError(.unsupported, "the sync framework syncs the private or the public database, not the shared one")
        }
        var descriptions: [String: EntityDescription] = [:]
        for type in configuration.entityTypes {
            descriptions[type.recordType] = try EntityDescription(
                type: type, globalSyncIdKey: configuration.syncIdKey, globalChangeDateKey: configuration.changeDateKey,
                ignoreKeys: configuration.ignoreKeys)
        }
        self.configuration = configuration
        self.delegate = delegate
        self.descriptions = descriptions
        // The public database has no custom zones: records live in the default zone.
        self.zoneID = configuration.databaseScope == .public ? .defaultZone : ZoneID(zoneName: configuration.zoneName)
        self.logger = configuration.logger
        self.bookkeeping = try SyncBookkeeping(path: configuration.bookkeepingPath)
        var machine = SyncSessionStateMachine()
        machine.outboxChanged(pending: try bookkeeping.outboxCount())
        if let date = try bookkeeping.lastSyncDate { machine.restoreLastSyncDate(date) }
        self.machine = machine
        skew = try bookkeeping.clockSkew
        storedSkew = skew
    }

    var database: Database { configuration.container.database(with: configuration.databaseScope) }

    // MARK: Current controller

    @TaskLocal static var taskCurrent: SyncController?
    private static let registered = Mutex<SyncController?>(nil)

    /// The controller `entity.cloud` uses: the task's (``withCurrent(_:)``), else the one made current.
    public static var current: SyncController? { taskCurrent ?? registered.withLock { $0 } }

    /// Makes this the controller `entity.cloud` uses in every task.
    public nonisolated func makeCurrent() {
        Self.registered.withLock { $0 = self }
    }

    /// Runs `body` with this controller current for `entity.cloud` (several controllers in one process).
    ///
    /// - Parameter body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public nonisolated func withCurrent<Result: Sendable>(_ body: @Sendable () async throws -> Result) async rethrows -> Result {
        try await Self.$taskCurrent.withValue(self) { try await body() }
    }

    /// The proxy for `entity`'s calls through this controller.
    ///
    /// - Parameter entity: The entity.
    /// - Returns: The proxy.
    public nonisolated func cloud(_ entity: any SyncableEntity) -> CloudProxy {
        CloudProxy(entity: entity, controller: self)
    }

    // MARK: Status and pause

    /// The current status.
    public var status: SyncStatus { machine.status }

    /// The status now and after every change, as an `AsyncSequence`.
    ///
    /// - Returns: A stream that ends when the caller stops iterating.
    public func statusUpdates() -> AsyncStream<SyncStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncStatus.self, bufferingPolicy: .bufferingNewest(32))
        let id = UUID()
        statusContinuations[id] = continuation
        continuation.yield(machine.status)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeStatusContinuation(id) }
        }
        return stream
    }

    private func removeStatusContinuation(_ id: UUID) {
        statusContinuations[id] = nil
    }

    func publish() {
        let status = machine.status
        for continuation in statusContinuations.values { continuation.yield(status) }
    }

    /// Switches the sync journal on or off: every upload, conflict and fetch logged at `debug`.
    ///
    /// - Parameter enabled: Whether to log at `debug` level.
    public func setDebugLogging(_ enabled: Bool) {
        logger.logLevel = enabled ? .debug : configuration.logger.logLevel
    }

    /// Pauses sync: saves and deletes wait in the outbox, no fetch runs, until ``resume()``.
    public func pause() {
        machine.pause()
        logger.debug("sync paused")
        publish()
    }

    /// Resumes sync and syncs: the outbox is replayed in order and the server checked.
    ///
    /// - Throws: What ``sync()`` throws.
    public func resume() async throws {
        _ = machine.resume()
        logger.debug("sync resumed")
        publish()
        try await sync()
    }

    /// Stops push and the reconnection retry, waits for the work they started, and closes the
    /// bookkeeping file; the controller must not be used afterwards.
    ///
    /// - Throws: An SQLite error.
    ///
    /// Work cancelled this way loses nothing: the outbox, the write-backs of resolved conflicts and
    /// uncommitted fetches are durable, and resume with the next sync.
    public func close() async throws {
        let background = pushTasks + [reconnectTask, drainTask, followUpTask].compactMap { $0 }
        reconnectTask?.cancel()
        reconnectTask = nil
        followUpTask?.cancel()
        stopPush()
        for task in background { await task.value }
        if let drainTask { await drainTask.value }
        for continuation in statusContinuations.values { continuation.finish() }
        statusContinuations = [:]
        try bookkeeping.close()
    }

    /// The description of an entity's type, or an error naming it.
    func description(of type: any SyncableEntity.Type) throws(SyncError) -> EntityDescription {
        guard let description = descriptions[type.recordType], ObjectIdentifier(description.type) == ObjectIdentifier(type) else {
            throw SyncError(.unknownEntityType, "entity type '\(type)' is not among the controller's entity types")
        }
        return description
    }

    /// The time of a local edit made at `date` on the device clock (now by default), on the server's timeline.
    func editTime(_ date: Date? = nil) -> Date {
        (date ?? configuration.now()).addingTimeInterval(skew)
    }
}
