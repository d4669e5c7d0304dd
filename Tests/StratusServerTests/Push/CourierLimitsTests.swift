@testable import StratusServer
import Testing

/// The courier's limits on parked polls, in the pure state machine (design note 0007).
@Suite struct CourierLimitsTests {
    typealias Machine = CourierStateMachine<String>
    static let limits = CourierLimits(perUser: 2, total: 3)

    /// Registers and parks a poll, failing the test if it is refused.
    static func park(_ machine: inout Machine, token: String, user: String, as name: String) throws -> CourierWaiterID {
        guard case .registered(let id, let superseded) = machine.register(token: token, user: user, limits: limits, continuing: false) else {
            Issue.record("\(name) was refused")
            throw LimitTestFailure()
        }
        #expect(superseded == nil)
        guard case .parked = machine.suspend(id, with: name) else {
            Issue.record("\(name) did not park")
            throw LimitTestFailure()
        }
        return id
    }

    struct LimitTestFailure: Error {}

    /// A user's polls past their limit are refused, other users' are not, and the node's limit counts everyone.
    @Test func pollsPastAUsersOrTheNodesLimitAreRefused() throws {
        var machine = Machine()
        _ = try Self.park(&machine, token: "a1", user: "alice", as: "a1")
        _ = try Self.park(&machine, token: "a2", user: "alice", as: "a2")
        guard case .refused(.userLimit(2)) = machine.register(token: "a3", user: "alice", limits: Self.limits, continuing: false) else {
            Issue.record("alice's third poll was admitted")
            return
        }
        _ = try Self.park(&machine, token: "b1", user: "bob", as: "b1")
        guard case .refused(.totalLimit(3)) = machine.register(token: "c1", user: "carol", limits: Self.limits, continuing: false) else {
            Issue.record("a poll past the node's limit was admitted")
            return
        }
        #expect(machine.count == 3)
    }

    /// At a limit, a new poll on a token with a parked poll replaces the oldest one, which is
    /// resumed as superseded; the count stays within the limit.
    @Test func aNewPollOnTheSameTokenSupersedesTheOldestAtTheLimit() throws {
        var machine = Machine()
        let oldest = try Self.park(&machine, token: "a1", user: "alice", as: "first")
        _ = try Self.park(&machine, token: "a2", user: "alice", as: "second")
        guard case .registered(let id, let superseded) = machine.register(token: "a1", user: "alice", limits: Self.limits, continuing: false) else {
            Issue.record("the reconnecting poll was refused")
            return
        }
        #expect(superseded == "first")
        #expect(id != oldest)
        #expect(machine.count == 2)
        #expect(machine.finish(oldest, because: .timedOut) == nil)
    }

    /// A poll registering again after a wake-up keeps its place, even at the limit.
    @Test func aContinuingPollIsNeverRefused() throws {
        var machine = Machine()
        _ = try Self.park(&machine, token: "a1", user: "alice", as: "a1")
        _ = try Self.park(&machine, token: "a2", user: "alice", as: "a2")
        #expect(machine.signal(["a1"]) == ["a1"])
        _ = try Self.park(&machine, token: "a3", user: "alice", as: "a3")
        guard case .registered = machine.register(token: "a1", user: "alice", limits: Self.limits, continuing: true) else {
            Issue.record("the woken poll lost its place")
            return
        }
    }

    /// A closed courier admits nothing.
    @Test func aClosedCourierRefusesEveryPoll() {
        var machine = Machine()
        _ = machine.close()
        guard case .refused(.closed) = machine.register(token: "t", user: "u", limits: .unlimited, continuing: true) else {
            Issue.record("a closed courier admitted a poll")
            return
        }
    }
}
