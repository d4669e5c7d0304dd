public import StratusWire
import Synchronization

/// How many requests each signed-in user made in each container environment, counted by this
/// node since it started (the console's usage page shows them; Documentation/0022-console.md).
///
/// A request counts once it is admitted: its credentials checked and the container's and the
/// user's budgets charged. The table is in memory and per node, like the per-client request
/// budgets; it holds at most ``capacity`` entries, and a user first seen when it is full is not
/// counted (``isFull`` says so), so a flood of accounts cannot grow it without bound.
///
/// ```swift
/// let counts = service.userRequestCounts.counts(container: "iCloud.com.example.Notes", environment: .development)
/// ```
public final class UserRequestCounts: Sendable {
    private struct Key: Hashable {
        var container: String
        var environment: Environment
        var user: String
    }

    /// The most (container, environment, user) entries kept.
    public let capacity: Int
    private let table = Mutex<[Key: Int64]>([:])

    /// Creates an empty table.
    ///
    /// - Parameter capacity: The most entries kept: 100,000 by default.
    public init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// Counts one admitted request of `user`.
    func record(container: String, environment: Environment, user: String) {
        let key = Key(container: container, environment: environment, user: user)
        table.withLock { table in
            if let count = table[key] {
                table[key] = count + 1
            } else if table.count < capacity {
                table[key] = 1
            }
        }
    }

    /// The counts of one container environment, by user record name.
    ///
    /// - Parameters:
    ///   - container: The container identifier.
    ///   - environment: The environment.
    /// - Returns: Requests admitted by this node since it started, per user record name.
    public func counts(container: String, environment: Environment) -> [String: Int64] {
        table.withLock { table in
            var counts: [String: Int64] = [:]
            for (key, count) in table where key.container == container && key.environment == environment { counts[key.user] = count }
            return counts
        }
    }

    /// Whether the table is full, so users first seen since are not counted.
    public var isFull: Bool { table.withLock { $0.count >= capacity } }
}
