@testable import StratusServer
import StratusTesting
import Testing

/// The parked polls' deadlines: earliest first, stale entries dropped by compaction.
@Suite struct CourierDeadlinesTests {
    /// Entries pop in deadline order whatever the insertion order, only once due.
    @Test func popsDueEntriesEarliestFirst() throws {
        var machine = CourierStateMachine<String>()
        let ids = try (0..<6).map { _ in try machine.mustRegister("t") }
        let base = ContinuousClock.now
        var deadlines = CourierDeadlines()
        for (id, seconds) in zip(ids, [5, 1, 3, 2, 4, 0]) { deadlines.insert(id, at: base + .seconds(seconds)) }
        #expect(deadlines.earliest == base)
        #expect(deadlines.popExpired(at: base + .milliseconds(2500)) == [ids[5], ids[1], ids[3]])
        #expect(deadlines.count == 3 && deadlines.earliest == base + .seconds(3))
        #expect(deadlines.popExpired(at: base + .seconds(2)).isEmpty)
        #expect(deadlines.popExpired(at: base + .seconds(9)) == [ids[2], ids[4], ids[0]])
        #expect(deadlines.earliest == nil)
    }

    /// Compaction keeps the live entries, still in order.
    @Test func compactionKeepsLiveEntriesInOrder() throws {
        var machine = CourierStateMachine<String>()
        let ids = try (0..<50).map { _ in try machine.mustRegister("t") }
        let base = ContinuousClock.now
        var deadlines = CourierDeadlines()
        for (index, id) in ids.enumerated() { deadlines.insert(id, at: base + .seconds((index * 37) % 50)) }
        let live = Set(ids.enumerated().filter { $0.offset % 3 == 0 }.map(\.element))
        deadlines.compact { live.contains($0) }
        #expect(deadlines.count == live.count)
        let popped = deadlines.popExpired(at: base + .seconds(60))
        #expect(Set(popped) == live)
        let order = popped.compactMap { id in ids.firstIndex(of: id).map { ($0 * 37) % 50 } }
        #expect(order == order.sorted())
    }
}

/// The driver: one timer task for all parked polls, started with the first and gone with the last.
@Suite struct CourierWaitersTests {
    static let limits = CourierLimits.unlimited

    /// Registers a poll on `token` and parks it until `timeout`, in a task of its own; returns once it is parked.
    static func park(_ waiters: CourierWaiters, _ token: String, timeout: Duration) async throws -> Task<(CourierWake, Duration), Never> {
        let id = try waiters.register(token: token, user: token, limits: limits, continuing: false).get()
        let before = waiters.deadlineCount
        let started = ContinuousClock.now
        let task = Task { (await waiters.wait(id, timeout: timeout), ContinuousClock.now - started) }
        #expect(await eventually { waiters.deadlineCount != before })
        return task
    }

    /// A poll with a shorter timeout parked after a longer one is not held until the longer one's deadline.
    @Test func anEarlierDeadlineReplacesTheTimer() async throws {
        let waiters = CourierWaiters()
        let long = try await Self.park(waiters, "long", timeout: .seconds(60))
        let short = try await Self.park(waiters, "short", timeout: .milliseconds(100))
        let (wake, waited) = await short.value
        #expect(wake == .timedOut)
        #expect(waited >= .milliseconds(100) && waited < .seconds(30))
        #expect(waiters.count == 1 && waiters.hasTimer)
        long.cancel()
        #expect(await long.value.0 == .cancelled)
        // No poll left: no timer, no deadlines.
        #expect(waiters.count == 0 && !waiters.hasTimer && waiters.deadlineCount == 0)
    }

    /// Polls time out in deadline order; the timer ends with the last.
    @Test func pollsTimeOutInOrder() async throws {
        let waiters = CourierWaiters()
        var polls: [Task<(CourierWake, Duration), Never>] = []
        for milliseconds in [300, 100, 200] {
            polls.append(try await Self.park(waiters, "t\(milliseconds)", timeout: .milliseconds(milliseconds)))
        }
        for (poll, milliseconds) in zip(polls, [300, 100, 200]) {
            let (wake, waited) = await poll.value
            #expect(wake == .timedOut)
            #expect(waited >= .milliseconds(milliseconds))
        }
        #expect(await eventually { !waiters.hasTimer })
        #expect(waiters.deadlineCount == 0)
    }

    /// Polls woken by a signal leave deadlines behind; they are dropped once they outnumber the parked polls.
    @Test func staleDeadlinesAreCompacted() async throws {
        let waiters = CourierWaiters()
        // NB: an hour, not a minute: parking 1,100 polls one after another took over a minute under
        // ThreadSanitizer on a loaded machine, and the first ones timed out before the signal.
        let keep = try await Self.park(waiters, "keep", timeout: .seconds(3600))
        var woken: [Task<(CourierWake, Duration), Never>] = []
        for index in 0..<1100 { woken.append(try await Self.park(waiters, "t\(index)", timeout: .seconds(3600))) }
        waiters.signal((0..<1100).map { "t\($0)" })
        for poll in woken { #expect(await poll.value.0 == .signalled) }
        #expect(waiters.count == 1 && waiters.deadlineCount == 1101)
        let next = try await Self.park(waiters, "next", timeout: .seconds(3600))
        #expect(waiters.deadlineCount == 2)
        waiters.close()
        #expect(await keep.value.0 == .closed)
        #expect(await next.value.0 == .closed)
        #expect(!waiters.hasTimer && waiters.deadlineCount == 0)
    }
}
