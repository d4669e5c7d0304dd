import Foundation
@testable import StratusServer
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// Issue 20 (push fan-out): matching subscriptions are evaluated outside the write lock. A records
/// write only probes the candidate index and appends an outbox entry (`PushOutboxRecorder`, inside
/// `store.write`); `PushFanout.step` evaluates the candidates with `PushFanoutPlanner` inside
/// `store.read`, after the commit, and applies the result in a short write of its own
/// (design note 0007).
@Suite struct PushMatchingOffWriterTests {
    static let subscribers = 40

    /// A write with 40 matching subscriptions evaluates none of them (its outbox entry waits), and
    /// the evaluation of all 40 runs to the end while another write holds the writer — on SQLite
    /// the single writer connection, on PostgreSQL the zone's row lock.
    @Test(.timeLimit(.minutes(2)), arguments: RecordStoreBackend.allCases)
    func matchingSubscriptionsAreEvaluatedWhileAnotherWriteHoldsTheWriter(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            server.service.fanout.close()  // fan-out runs below, step by step
            let users = (0..<Self.subscribers).map { String(format: "_match%027d", $0) }
            try await server.store.write { tx in
                for user in users {
                    try PushOutboxTests.put(tx, user, Subscription(subscriptionID: "zone", subscriptionType: .zone))
                    try tx.createPushToken(PushOutboxTests.token("token" + user, user: user))
                }
            }
            _ = try await server.modify([.create(Record(recordName: "p1", recordType: "Post", fields: [:]))], database: "public")
            // The write committed without evaluating anything: one outbox entry waits.
            #expect(server.service.fanout.statistics.evaluatedSubscriptions == 0)
            #expect(try await server.store.read { try $0.pushOutbox(limit: 10) }.count == 1)

            let events = Mutex<[String]>([])
            let holder = WriterHolder()
            let held = Task {
                try await server.store.write { tx in
                    // Lock the zone the entry is about (PostgreSQL), on the only writer (SQLite).
                    let zone = try tx.zone(named: ZoneID.defaultZoneName, in: PushOutboxTests.publicDB)
                    try tx.prefetchRecords(named: ["p1"], inZone: zone?.rowID ?? 0)
                    holder.hold()
                    events.withLock { $0.append("writer released") }
                }
            }
            try await holder.waitUntilHeld()
            let planner = PushFanoutPlanner(configuration: PushConfiguration(), now: 0)
            let batch = try await server.store.read { tx in try planner.plan(tx) }
            events.withLock { $0.append("planned \(batch.evaluatedSubscriptions) evaluations, \(batch.deliveries.count) deliveries") }
            holder.release()
            try await held.value

            #expect(
                events.withLock { $0 } == ["planned \(Self.subscribers) evaluations, \(Self.subscribers) deliveries", "writer released"],
                "the evaluation waited for the writer"
            )
            let outcome = try await server.store.write { tx in
                try batch.apply(tx, maximumBacklog: 10, maximumAPNsQueued: 10, apnsLease: nil, now: 0)
            }
            #expect(outcome.queued == Self.subscribers)
            #expect(try await server.store.read { try $0.pushOutbox(limit: 10) }.isEmpty)
        }
    }

    /// Blocks a store write's thread until released (or 30 s pass, so a failing test ends).
    final class WriterHolder: Sendable {
        private let entered = Atomic<Bool>(false)
        private let gate = DispatchSemaphore(value: 0)

        func hold() {
            entered.store(true, ordering: .releasing)
            _ = gate.wait(timeout: .now() + 30)
        }

        func release() { gate.signal() }

        func waitUntilHeld() async throws {
            while !entered.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(5)) }
        }
    }
}
