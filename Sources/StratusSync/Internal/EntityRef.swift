import Foundation
import Synchronization

/// An entity as the controller holds it: the reference, its type, its identity and where it may be used.
///
/// Entities need not be `Sendable`; the controller passes this handle between its tasks and reaches
/// the entity only through ``access(_:)``, which runs in the entity's ``SyncConfinement``.
// Safety: `entity` is read or written only inside `access` (its confinement) or by the delegate it
// is handed to, which uses it in that confinement; everything else here is immutable and Sendable.
final class EntityRef: @unchecked Sendable {
    let entity: any SyncableEntity
    let type: any SyncableEntity.Type
    let identity: ObjectIdentifier
    let confinement: SyncConfinement

    init(_ entity: any SyncableEntity) {
        self.entity = entity
        type = Swift.type(of: entity)
        identity = entity.syncIdentity
        confinement = entity.syncConfinement
    }

    /// Runs `body` with the entity where it may be used and returns what it returns.
    ///
    /// Runs on the caller's executor (no hop off the controller's actor for an entity that may be
    /// used anywhere: a delivery of 100,000 records made several such hops per record).
    ///
    /// - Throws: What `body` throws; ``SyncError/Code/confinementGone`` when the entity's queue is gone.
    nonisolated(nonsending) func access<Result: Sendable>(_ body: @escaping @Sendable (any SyncableEntity) throws -> Result) async throws -> Result {
        try await confinement.run { try body(self.entity) }
    }
}

extension SyncConfinement {
    /// Runs `body` on the queue and returns its result: in place for ``anywhere`` (on the caller's
    /// executor, without a hop); on the thread of a `saveAndWait()` that blocks the queue, if one
    /// does; else through `perform`.
    ///
    /// A delegate whose callbacks touch its store should reach the store this way too, so that a
    /// `saveAndWait()` made on the store's queue never waits for itself.
    ///
    /// - Parameter body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws; ``SyncError/Code/confinementGone`` when the queue is gone.
    public nonisolated(nonsending) func run<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        guard let perform else { return try body() }
        // The result comes back through `box`, never through a continuation alone: the lock orders
        // what the block did on the queue (making an entity, say) before what the caller does with it,
        // in a way ThreadSanitizer sees too. A continuation resumed before its task reached the
        // await lets the task run on without the runtime telling ThreadSanitizer (Documentation/0016).
        let box = Mutex<Swift.Result<Result, any Error>?>(nil)
        let block: @Sendable () -> Void = {
            let result = Swift.Result { try body() }
            box.withLock { $0 = result }
        }
        var ran = false
        if let identity, let waiter = QueueWaiter.current(for: identity) {
            ran = await waiter.run(block)
        }
        if !ran {
            ran = await perform(block)
        }
        guard ran, let result = box.withLock({ $0 }) else {
            throw SyncError(.confinementGone, "the queue of an entity is gone (its context was released); nothing was read or written")
        }
        return try result.get()
    }
}

extension SyncConfinement {
    /// Runs `work` and blocks the calling thread until it ends; called on this queue, the thread runs
    /// the blocks the controller posts for the queue meanwhile (``run(_:)``), so the work can read and
    /// write the queue's entities. What the `…AndWait` calls of ``CloudProxy`` are made of.
    ///
    /// - Parameter work: The work.
    /// - Returns: What `work` returns.
    /// - Throws: What `work` throws.
    @available(*, noasync, message: "await the work from async code")
    public func wait<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) throws -> Value {
        if let identity, isCurrent() {
            return try QueueWaiter.serving(identity, work)
        }
        let box = Mutex<Swift.Result<Value, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Swift.Result<Value, any Error>
            do { result = .success(try await work()) } catch { result = .failure(error) }
            box.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = box.withLock({ $0 }) else {
            throw SyncError(.rejected, "the blocking call finished without a result")
        }
        return try result.get()
    }
}

extension SyncConfinement {
    /// ``run(_:)`` for a result that is not `Sendable`: the entities a delegate finds or makes on its
    /// queue for the controller, which uses them only on that queue (the result is handed over, not shared).
    ///
    /// ```swift
    /// import StratusStore
    /// import StratusStoreSync
    /// import StratusSync
    ///
    /// func allNotes<Entity: SyncableManagedObject>(_ type: Entity.Type, in context: ObjectContext) async throws -> [any SyncableEntity] {
    ///     try await SyncConfinement(context: context).run(handing: {
    ///         try context.fetch(FetchRequest(entityName: Entity.entityName)).map { Entity(object: $0) as any SyncableEntity }
    ///     })
    /// }
    /// ```
    ///
    /// - Parameter body: The work, on the queue.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws; ``SyncError/Code/confinementGone`` when the queue is gone.
    public func run<Result>(handing body: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await run { HandedOver(try body()) }.value
    }
}

/// A value made on a queue and handed to one caller, who uses it there (or passes it back there).
// Safety: the value is made in the block and read once by the one caller of `run(handing:)`;
// nothing else holds it.
private struct HandedOver<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}

/// A thread blocked in `saveAndWait()` on an entity's queue: until the save is done it runs the
/// blocks posted for that queue, so the controller's reads and write-backs of entities confined there
/// happen on the queue instead of waiting for it.
final class QueueWaiter: Sendable {
    private struct State {
        var blocks: [@Sendable () -> Void] = []
        var finished = false
    }

    private let state = Mutex(State())
    private let signal = DispatchSemaphore(value: 0)
    private static let waiting = Mutex<[ObjectIdentifier: [QueueWaiter]]>([:])

    /// The innermost waiter blocking the queue `identity`, if any.
    static func current(for identity: ObjectIdentifier) -> QueueWaiter? {
        waiting.withLock { $0[identity]?.last }
    }

    /// Runs `work` while the calling thread (which is on the queue `identity`) serves blocks for it.
    static func serving<Value: Sendable>(_ identity: ObjectIdentifier, _ work: @escaping @Sendable () async throws -> Value) throws -> Value {
        let waiter = QueueWaiter()
        waiting.withLock { $0[identity, default: []].append(waiter) }
        defer {
            waiting.withLock { waiting in
                waiting[identity]?.removeAll { $0 === waiter }
                if waiting[identity]?.isEmpty == true { waiting[identity] = nil }
            }
        }
        let box = Mutex<Swift.Result<Value, any Error>?>(nil)
        Task {
            let result: Swift.Result<Value, any Error>
            do { result = .success(try await work()) } catch { result = .failure(error) }
            box.withLock { $0 = result }
            waiter.finish()
        }
        waiter.serve()
        guard let result = box.withLock({ $0 }) else {
            throw SyncError(.rejected, "the blocking call finished without a result")
        }
        return try result.get()
    }

    /// Posts `block` to the waiting thread and returns once it ran, `true`; `false` when the waiter has
    /// finished (the block did not run).
    func run(_ block: @escaping @Sendable () -> Void) async -> Bool {
        await withCheckedContinuation { continuation in
            let posted = state.withLock { state -> Bool in
                guard !state.finished else { return false }
                state.blocks.append {
                    block()
                    continuation.resume(returning: true)
                }
                return true
            }
            if posted { signal.signal() } else { continuation.resume(returning: false) }
        }
    }

    private func finish() {
        state.withLock { $0.finished = true }
        signal.signal()
    }

    /// Runs posted blocks until finished; blocks posted after that are refused (their callers perform).
    private func serve() {
        while true {
            signal.wait()
            let (blocks, finished) = state.withLock { state in
                defer { state.blocks = [] }
                return (state.blocks, state.finished)
            }
            for block in blocks { block() }
            if finished { return }
        }
    }
}
