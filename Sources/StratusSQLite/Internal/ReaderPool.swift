import Dispatch
import Synchronization

/// The read-only connections of a pool, checked out one caller at a time.
///
/// A Mutex guards the free list and the FIFO of waiters. Releasing a reader hands it
/// straight to the oldest waiter, so a waiting reader never races a newcomer.
final class ReaderPool: Sendable {
    private struct State: Sendable {
        var free: [Int]
        var waiters: [Waiter] = []
        var waiterHead = 0
        var isClosed = false

        mutating func popWaiter() -> Waiter? {
            guard waiterHead < waiters.count else { return nil }
            let waiter = waiters[waiterHead]
            waiterHead += 1
            if waiterHead == waiters.count {
                waiters.removeAll(keepingCapacity: true)
                waiterHead = 0
            }
            return waiter
        }
    }

    private enum Waiter: Sendable {
        case async(CheckedContinuation<Int, Never>)
        case sync(SyncWaiter)
    }

    /// A thread blocked in a synchronous read, waiting for a reader.
    ///
    /// NB: the semaphore blocks only a caller of the synchronous API, which asked to block;
    /// async callers wait on a continuation instead.
    private final class SyncWaiter: Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        let assigned = Mutex<Int?>(nil)
    }

    let readers: [SerializedConnection]
    private let state: Mutex<State>

    init(readers: [SerializedConnection]) {
        self.readers = readers
        state = Mutex(State(free: Array(readers.indices.reversed())))
    }

    /// Checks out a reader, suspending while none is free.
    private func acquire() async -> Int {
        let immediate: Int? = state.withLock { state in
            precondition(!state.isClosed, "read from a closed SQLiteDatabasePool")
            return state.free.popLast()
        }
        if let immediate { return immediate }
        return await withCheckedContinuation { continuation in
            let index: Int? = state.withLock { state in
                if let index = state.free.popLast() { return index }
                state.waiters.append(.async(continuation))
                return nil
            }
            if let index { continuation.resume(returning: index) }
        }
    }

    /// Checks out a reader, blocking the thread while none is free.
    private func acquireSync(closing: Bool = false) -> Int {
        let waiter = SyncWaiter()
        let index: Int? = state.withLock { state in
            precondition(closing || !state.isClosed, "read from a closed SQLiteDatabasePool")
            if let index = state.free.popLast() { return index }
            state.waiters.append(.sync(waiter))
            return nil
        }
        if let index { return index }
        waiter.semaphore.wait()
        guard let assigned = waiter.assigned.withLock({ $0 }) else {
            preconditionFailure("reader pool woke a waiter without assigning a reader")
        }
        return assigned
    }

    /// Returns a reader: to the oldest waiter if there is one, else to the free list.
    private func release(_ index: Int) {
        let waiter: Waiter? = state.withLock { state in
            if let waiter = state.popWaiter() { return waiter }
            state.free.append(index)
            return nil
        }
        switch waiter {
        case .none:
            break
        case .async(let continuation):
            continuation.resume(returning: index)
        case .sync(let syncWaiter):
            syncWaiter.assigned.withLock { $0 = index }
            syncWaiter.semaphore.signal()
        }
    }

    /// Runs `body` on a free reader's queue; the reader is released before the caller resumes.
    func read<Result: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> Result) async throws -> Result {
        let index = await acquire()
        return try await readers[index].perform(body) { [self] in release(index) }
    }

    /// Runs `body` on a free reader's queue, blocking the calling thread.
    func readSync<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        let index = acquireSync()
        defer { release(index) }
        return try readers[index].sync(body)
    }

    /// Waits until every reader is back, then closes them all; later reads are programming errors.
    func close() throws {
        guard !state.withLock({ $0.isClosed }) else { return }
        let indexes = readers.indices.map { _ in acquireSync(closing: true) }
        state.withLock { $0.isClosed = true }
        var firstError: (any Error)?
        for index in indexes {
            do {
                try readers[index].sync { try $0.close() }
            } catch {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
    }
}
