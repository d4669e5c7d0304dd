import Foundation
import Synchronization

/// A transport that can be switched off: while off, every request fails at once with
/// `URLError(.notConnectedToInternet)`, as with the radio off. For demos and tests of offline work.
///
/// ```swift
/// let network = SwitchableTransport()
/// let container = Container(identifier: id, environment: .development, serverURL: url, authentication: .none, transport: network)
/// network.isOffline = true    // saves queue up; the sync outbox replays them when it is back on
/// ```
public final class SwitchableTransport: HTTPTransport {
    private let inner: any HTTPTransport
    private let offline = Mutex(false)

    /// Wraps a transport.
    ///
    /// - Parameter inner: What sends the requests while online; a new ``DefaultTransport`` by default.
    public init(_ inner: any HTTPTransport = DefaultTransport.make()) {
        self.inner = inner
    }

    /// Whether requests fail as if offline.
    public var isOffline: Bool {
        get { offline.withLock { $0 } }
        set { offline.withLock { $0 = newValue } }
    }

    /// Sends through the wrapped transport, or fails while offline.
    ///
    /// - Parameter request: The request.
    /// - Returns: The response.
    /// - Throws: `URLError(.notConnectedToInternet)` while offline; what the wrapped transport throws.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        if isOffline { throw URLError(.notConnectedToInternet) }
        return try await inner.send(request)
    }
}
