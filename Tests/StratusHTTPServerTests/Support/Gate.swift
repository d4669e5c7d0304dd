import Foundation
import Synchronization

/// Holds every arrival until `count` have arrived, then lets them all go.
///
/// Used to prove that many requests are parked at the same time.
actor Gate {
    private let count: Int
    private var arrived = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { self.count = count }

    /// Waits until `count` callers have arrived; returns how many had arrived when this one did.
    @discardableResult
    func arrive() async -> Int {
        arrived += 1
        let position = arrived
        if arrived >= count {
            waiting.forEach { $0.resume() }
            waiting = []
            return position
        }
        await withCheckedContinuation { waiting.append($0) }
        return position
    }

    var arrivals: Int { arrived }
}

/// A one-shot signal that async code can wait for.
actor Signal {
    private var fired = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func fire() {
        fired = true
        waiting.forEach { $0.resume() }
        waiting = []
    }

    func wait() async {
        if fired { return }
        await withCheckedContinuation { waiting.append($0) }
    }
}

/// Counts handler calls from any thread.
final class HitCounter: Sendable {
    private let hits = Mutex(0)
    func hit() { hits.withLock { $0 += 1 } }
    var count: Int { hits.withLock { $0 } }
}

/// Parses a JSON object body or fails the test.
func jsonObject(_ data: Data) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: data)
    guard let dictionary = object as? [String: Any] else {
        throw RawHTTPFailure(description: "not a JSON object: \(String(decoding: data, as: UTF8.self))")
    }
    return dictionary
}

struct RawHTTPFailure: Error, CustomStringConvertible {
    var description: String
}
