import Dispatch
import StratusLogging

/// A connection slot confined to its own serial dispatch queue, connecting lazily.
///
/// Every use of the connection runs as a block on `queue`, so libpq's blocking calls never
/// occupy a thread of Swift's cooperative pool: async callers suspend on a continuation.
// Safety: `connection` is read and written only by blocks running on the serial `queue`.
final class QueuedConnection: @unchecked Sendable {
    private let queue: DispatchQueue
    private var connection: PostgresConnection?
    private let url: String
    private let setup: [String]
    private let logger: Logger

    init(label: String, url: String, setup: [String], logger: Logger) {
        queue = DispatchQueue(label: label)
        self.url = url
        self.setup = setup
        self.logger = logger
    }

    /// Runs `body` on the queue with a healthy connection (connecting or reconnecting first).
    func perform<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try body(try self.healthyConnection()) })
            }
        }
    }

    /// Drops the connection once the work already queued has run (without blocking the caller).
    func close() {
        queue.async { self.connection = nil }
    }

    private func healthyConnection() throws -> PostgresConnection {
        if let connection {
            if connection.isConnected { return connection }
            do {
                try connection.reconnect()
                return connection
            } catch {
                self.connection = nil
                throw error
            }
        }
        let fresh = try PostgresConnection(url: url, setup: setup, logger: logger)
        connection = fresh
        return fresh
    }
}
