import Dispatch
import Foundation
import StratusSync
import Testing

/// `SyncConfinement` hands what a block made on the queue to its caller in an order every thread
/// sees — ThreadSanitizer's too — on both of its paths: the queue's own `perform`, and the thread
/// of a blocking `…AndWait` call that holds the queue and runs the controller's blocks itself.
///
/// Under `make test-tsan` these are the regression tests of the hand-over: each object is made on
/// the queue and read by the caller right after, a thousand times, so a hand-over ThreadSanitizer
/// cannot see (a continuation resumed before its task awaited) is reported within a run.
@Suite struct SyncConfinementTests {
    /// What a delegate makes on its context's queue: not `Sendable`, written there, read by the caller.
    final class Made {
        let number: Int
        var madeOnQueue: Bool

        init(number: Int, madeOnQueue: Bool) {
            self.number = number
            self.madeOnQueue = madeOnQueue
        }
    }

    /// A serial queue as a confinement, the way `SyncConfinement`'s documentation shows one.
    struct Queue: Sendable {
        let queue = DispatchQueue(label: "stratus.test.confinement")
        let key = DispatchSpecificKey<Int>()
        let confinement: SyncConfinement

        init() {
            queue.setSpecific(key: key, value: 1)
            confinement = SyncConfinement(
                identity: queue,
                isCurrent: { [key] in DispatchQueue.getSpecific(key: key) != nil },
                perform: { [queue] body in
                    await withCheckedContinuation { done in
                        queue.async {
                            body()
                            done.resume()
                        }
                    }
                    return true
                })
        }

        /// Makes `count` objects on the queue through `run(handing:)` and sums their numbers as the caller reads them.
        func handOver(_ count: Int) async throws -> (sum: Int, allOnQueue: Bool) {
            let key = key
            var sum = 0
            var allOnQueue = true
            for number in 1...count {
                let made = try await confinement.run(handing: { Made(number: number, madeOnQueue: DispatchQueue.getSpecific(key: key) != nil) })
                sum += made.number
                allOnQueue = allOnQueue && made.madeOnQueue
            }
            return (sum, allOnQueue)
        }
    }

    /// With a thread blocked in `wait` on the queue (`saveAndWait()` inside `perform`), the blocks run
    /// on that thread — the queue itself is held, so `perform` would never run them — and every
    /// object they make reaches the caller whole.
    @Test func objectsMadeOnTheThreadWaitingOnTheQueueReachTheCallerWhole() async throws {
        let queue = Queue()
        let result = try await withCheckedThrowingContinuation { continuation in
            queue.queue.async {
                continuation.resume(with: Result { try queue.confinement.wait { try await queue.handOver(1000) } })
            }
        }
        #expect(result.sum == 1000 * 1001 / 2)
        #expect(result.allOnQueue, "every object was made on the queue")
    }

    /// Without a waiting thread, the blocks go through the queue's `perform` and the objects reach the caller whole.
    @Test func objectsMadeThroughPerformReachTheCallerWhole() async throws {
        let queue = Queue()
        let result = try await queue.handOver(1000)
        #expect(result.sum == 1000 * 1001 / 2)
        #expect(result.allOnQueue, "every object was made on the queue")
    }
}
