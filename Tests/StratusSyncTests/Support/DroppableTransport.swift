import Foundation
import StratusClient
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport whose requests in flight can be cut at once, as a network drop cuts a parked long
/// poll (`SwitchableTransport` only refuses new requests).
final class DroppableTransport: HTTPTransport {
    private let inner: any HTTPTransport
    /// Bumped by each cut; a request started before it fails.
    private let cuts = Mutex(0)

    init(_ inner: any HTTPTransport) { self.inner = inner }

    /// Fails every request in flight with `URLError(.networkConnectionLost)`.
    func cutInFlight() { cuts.withLock { $0 += 1 } }

    private var cutCount: Int { cuts.withLock { $0 } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let started = cutCount
        return try await withThrowingTaskGroup(of: TransportResponse.self) { group in
            group.addTask { try await self.inner.send(request) }
            group.addTask {
                while self.cutCount == started { try await Task.sleep(for: .milliseconds(10)) }
                throw URLError(.networkConnectionLost)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw URLError(.unknown) }
            return first
        }
    }
}
