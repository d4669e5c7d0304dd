import Foundation
public import StratusClient
import StratusLogging
public import StratusWire
import Synchronization

/// Syncs a local store's entities with a CloudKit database: uploads through a durable outbox,
/// fetches the zone's change feed, resolves conflicts by policy. With `databaseScope: .public` it
/// queries by modification time and carries deletions in DeleteQueue records instead.
///
/// A full app, entities and delegate included, is in `Examples/Seed` (`CloudController.swift`).
///
/// ```swift
/// import Foundation
/// import StratusClient
/// import StratusSync
///
/// func startSyncing<Note: SyncableEntity>(
///     _ note: Note, container: Container, store: some SyncDelegate, deviceID: String, supportDirectory: URL
/// ) async throws -> SyncController {
///     let sync = try SyncController(configuration: SyncConfiguration(
///         container: container, entityTypes: [Note.self],
///         syncIdKey: "syncID", changeDateKey: "modified", deviceID: deviceID,
///         bookkeepingPath: supportDirectory.appendingPathComponent("sync.sqlite").path), delegate: store)
///     sync.makeCurrent()
///     try await note.cloud.save()       // upload (queued durably first)
///     try await sync.sync()             // upload what is pending, then fetch what changed
///     return sync
/// }
/// ```
///
/// The session's state lives in ``SyncSessionStateMachine`` (pure: events in, actions out); this
/// actor performs the I/O it asks for and feeds the results back.
public actor SyncController {
    /// The session state machine with the continuations this actor parks in it.
    typealias Session = SyncSessionStateMachine<CheckedContinuation<FetchWake, Never>, CheckedContinuation<DrainWake, Never>>

    /// The configuration.
    public nonisolated let configuration: SyncConfiguration
    /// The local store's side.
    public nonisolated let delegate: any SyncDelegate
    /// The zone every record of the app lives in.
    public nonisolated let zoneID: ZoneID

    let bookkeeping: SyncBookkeeping
    let descriptions: [String: EntityDescription]
    /// Large `Data` fields as assets: staged for upload, downloaded on demand.
    let assets: SyncAssets
    var logger: Logger
    /// The session's state: the fetch queue, the drain and its waiting callers, pause, the
    /// follow-up sync, the server facts. The actor keeps none of its own.
    var machine: Session
    /// Server time minus device time (corrects local edit times).
    var clock: ClockSkew
    /// Last-synced versions written by uploads, so an older fetched batch cannot overwrite them.
    var generations = BaseGenerations()
    /// Entities given to `save()`, by record name, until their upload finishes.
    var liveEntities: [String: EntityRef] = [:]
    /// Placeholders the delegate handed out (they stay alive in the entities that show them).
    var placeholders: [ObjectIdentifier: EntityRef] = [:]
    /// What runs in the background.
    var tasks = BackgroundTasks()
    /// Set by ``close()``: no reconnection retry or follow-up sync starts any more.
    var isClosing = false
    var statusContinuations: [UUID: AsyncStream<SyncStatus>.Continuation] = [:]

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
                excludedKeys: configuration.excludedKeys)
        }
        self.configuration = configuration
        self.delegate = delegate
        self.descriptions = descriptions
        // The public database has no custom zones: records live in the default zone.
        self.zoneID = configuration.databaseScope == .public ? .defaultZone : ZoneID(zoneName: configuration.zoneName)
        var logger = configuration.logger
        if configuration.debugLogging { logger.logLevel = min(logger.logLevel, .debug) }
        self.logger = logger
        let bookkeeping = try SyncBookkeeping(path: configuration.bookkeepingPath)
        self.bookkeeping = bookkeeping
        assets = SyncAssets(bookkeeping: bookkeeping, threshold: configuration.assetThreshold)
        var machine = Session(reconnects: configuration.reconnectInterval != nil)
        machine.outboxChanged(pending: try bookkeeping.outboxCount())
        if let date = try bookkeeping.lastSyncDate { machine.restoreLastSyncDate(date) }
        self.machine = machine
        clock = ClockSkew(stored: try bookkeeping.clockSkew)
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
    /// - Returns: A stream that ends when the caller stops iterating or the controller closes.
    public func statusUpdates() -> AsyncStream<SyncStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncStatus.self, bufferingPolicy: .bufferingNewest(32))
        continuation.yield(machine.status)
        guard !isClosing else {
            continuation.finish()
            return stream
        }
        let id = UUID()
        statusContinuations[id] = continuation
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

    /// Switches the sync journal on or off: every upload, conflict and fetch logged at `debug`
    /// (on by default: ``SyncConfiguration/debugLogging``). Off, the logger keeps its own level, but
    /// no lower than `info`.
    ///
    /// - Parameter enabled: Whether to log at `debug` level.
    public func setDebugLogging(_ enabled: Bool) {
        logger.logLevel = enabled ? min(configuration.logger.logLevel, .debug) : max(configuration.logger.logLevel, .info)
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
        try ensureOpen("resume()")
        _ = machine.resume()
        logger.debug("sync resumed")
        publish()
        try await sync()
    }

    /// Stops push and the reconnection retry, waits for the work they started, and closes the
    /// bookkeeping file. Afterwards every call that would sync, queue or start push throws
    /// ``SyncError/Code/closed``, and ``statusUpdates()`` ends at once; closing again does nothing.
    ///
    /// - Throws: An SQLite error.
    ///
    /// Work cancelled this way loses nothing: the outbox, the write-backs of resolved conflicts and
    /// uncommitted fetches are durable, and resume with the next sync.
    public func close() async throws {
        isClosing = true
        // Until none is left: work awaited here can start more (a drain's end a follow-up sync, a
        // failed upload the reconnection retry) — those would read the bookkeeping after it closed.
        var awaited: Set<Task<Void, Never>> = []
        while true {
            let running = tasks.all.filter { !awaited.contains($0) }
            tasks.reconnect?.cancel()
            tasks.followUp?.cancel()
            stopPush()
            if running.isEmpty { break }
            for task in running {
                await task.value
                awaited.insert(task)
            }
        }
        for continuation in statusContinuations.values { continuation.finish() }
        statusContinuations = [:]
        try bookkeeping.close()
    }

    /// Throws ``SyncError/Code/closed`` once ``close()`` has begun: the bookkeeping is closed, and
    /// no work may start that close() would not wait for.
    ///
    /// - Parameter call: The public call refused, named in the error.
    func ensureOpen(_ call: String) throws(SyncError) {
        guard isClosing else { return }
        throw SyncError(.closed, "\(call) on a SyncController that was closed; make a new one to sync again")
    }

    /// The description of an entity's type, or an error naming it.
    func description(of type: any SyncableEntity.Type) throws(SyncError) -> EntityDescription {
        try EntityDescription.lookup(type, in: descriptions)
    }

    /// The time of a local edit made at `date` on the device clock (now by default), on the server's timeline.
    func editTime(_ date: Date? = nil) -> Date {
        clock.editTime(date ?? configuration.now())
    }
}

/// The delegate's calls that take or give entities, made outside the controller's isolation: an
/// entity need not be `Sendable`, so it comes back wrapped in an ``EntityRef`` and goes out unwrapped
/// only here, never crossing into the actor.
extension SyncController {
    nonisolated func delegateEntity(ofType type: any SyncableEntity.Type, syncID: String) async throws -> EntityRef? {
        try await delegate.entity(ofType: type, syncID: syncID).map(EntityRef.init)
    }

    nonisolated func delegateCreateEntity(ofType type: any SyncableEntity.Type) async throws -> EntityRef {
        EntityRef(try await delegate.createEntity(ofType: type))
    }

    nonisolated func delegateAllEntities(ofType type: any SyncableEntity.Type) async throws -> [EntityRef] {
        try await delegate.allEntities(ofType: type).map(EntityRef.init)
    }

    nonisolated func delegatePlaceholder(for type: any SyncableEntity.Type) async throws -> EntityRef? {
        try await delegate.referencePlaceholder(for: type).map(EntityRef.init)
    }

    /// Tells the delegate what became of saves, in order, with one hop off the actor for them all.
    nonisolated func delegateDidSave(_ reports: [SaveReport]) async {
        for report in reports {
            await delegate.syncController(self, didSave: report.entity?.entity, record: report.record, error: report.error)
        }
    }
}

/// What became of one save, for the delegate's `didSave`.
struct SaveReport: Sendable {
    var entity: EntityRef?
    var record: StratusClient.Record?
    var error: (any Error)?
}
