import StratusServer
import Synchronization

/// The APNs requests that got no answer (a broken connection, a deadline that passed), noted as
/// they happen: a test's evidence when delivery retried more often than its script says.
///
/// ```swift
/// let fake = try await FakeAPNsServer.start()
/// let server = try await TestCloudKitServer.start { $0.push.apns.endpoint = fake.endpoint }
/// let failures = APNsTransportFailures()
/// try await server.deliverAPNs(to: fake, failures: failures)
/// // … a save that pushes, answered 429 once by the fake …
/// let retried = server.service.apnsStatistics.retried
/// #expect(retried == 1 + failures.all.count, "requests without an answer: \(failures.all)")
/// ```
public final class APNsTransportFailures: Sendable {
    private let noted = Mutex<[String]>([])

    /// An empty list.
    public init() {}

    /// Each failure so far, oldest first: its code and message.
    public var all: [String] { noted.withLock { $0 } }

    func note(_ error: APNsTransportError) {
        noted.withLock { $0.append("\(error)") }
    }
}

/// A transport that passes every request to `base` and notes each failure in `failures`.
struct FailureNotingAPNsTransport: APNsTransport {
    let base: any APNsTransport
    let failures: APNsTransportFailures

    func send(_ request: APNsRequest) async throws(APNsTransportError) -> APNsResponse {
        do throws(APNsTransportError) {
            return try await base.send(request)
        } catch {
            failures.note(error)
            throw error
        }
    }

    func send(_ requests: [APNsRequest]) async -> [Result<APNsResponse, APNsTransportError>] {
        let results = await base.send(requests)
        for case .failure(let error) in results { failures.note(error) }
        return results
    }

    func shutdown() async {
        await base.shutdown()
    }
}
