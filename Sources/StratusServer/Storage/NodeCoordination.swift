public import Foundation
public import StratusLogging

/// What a store that several server nodes share offers them beyond records and rate buckets: the
/// secrets every node must hold alike, and a relay that wakes the courier polls parked on one node
/// when another commits notifications for them (Documentation/0008-postgres.md).
///
/// A ``RecordStore`` says whether it has this through ``RecordStore/nodeCoordination`` (PostgreSQL
/// does; a SQLite file serves one node and has none), so `stratus serve` composes a cluster node
/// without knowing the back end's type.
///
/// ```swift
/// if let coordination = store.nodeCoordination {
///     let secret = try await coordination.sharedSecret(named: "token-secret") { Data(repeating: 7, count: 32) }
///     let relay = try coordination.startPushRelay(logger: logger) { tokens in service.signalPush(tokens: tokens) }
///     defer { relay.stop() }
///     _ = secret
/// }
/// ```
public protocol NodeCoordination: Sendable {
    /// The secret named `name`, made with `make` by the first node that asks and read by every other.
    ///
    /// - Parameters:
    ///   - name: The secret's name, such as `token-secret`.
    ///   - make: Makes a new secret (stored only if no other node stored one first).
    /// - Returns: The stored secret.
    /// - Throws: Store errors, or what `make` throws.
    func sharedSecret(named name: String, make: @escaping @Sendable () throws -> Data) async throws -> Data

    /// Starts calling `wake` with the web-courier tokens of every committed write, on any node, that
    /// queued notifications for them, until the relay is stopped.
    ///
    /// - Parameters:
    ///   - logger: Where the relay logs reconnections.
    ///   - wake: Called with the tokens of each such write.
    /// - Returns: The running relay.
    /// - Throws: Store errors when the relay cannot start listening.
    func startPushRelay(logger: Logger, wake: @escaping @Sendable (Set<String>) -> Void) throws -> any PushRelay
}

/// A running relay of push wake-ups between nodes (``NodeCoordination/startPushRelay(logger:wake:)``).
public protocol PushRelay: Sendable {
    /// Stops relaying.
    func stop()
}
