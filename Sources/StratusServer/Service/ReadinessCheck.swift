public import StratusHTTP
import Foundation

/// `GET /ready`: whether this node can serve requests — its store answers a read within a
/// deadline — for load balancers and orchestrators. `/health` stays a liveness check (the process
/// answers at all).
///
/// The store was migrated when it opened (a store with a newer schema refuses to open), so a
/// read that succeeds means reachable and migrated. Answers `200 {"status":"ready"}`, or `503
/// {"status":"unavailable","reason":…}` naming what failed; no credentials are needed and nothing
/// about the data is revealed.
///
/// ```swift
/// let readiness = ReadinessCheck(store: store)
/// router.route(.get, "/ready") { _ in await readiness.response() }
/// ```
public struct ReadinessCheck: Sendable {
    let store: any RecordStore
    /// How long the store may take to answer before the node counts as unavailable.
    public var timeout: Duration

    /// A check of `store`, unavailable when it takes longer than `timeout` (2 s by default).
    public init(store: any RecordStore, timeout: Duration = .seconds(2)) {
        self.store = store
        self.timeout = timeout
    }

    /// `nil` when ready, else why not.
    public func problem() async -> String? {
        let store = store
        let timeout = timeout
        return await withTaskGroup(of: String?.self) { group in
            group.addTask {
                do {
                    _ = try await store.read { try $0.containers().count }
                    return nil
                } catch {
                    return "the store did not answer a read: \(error)"
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return Task.isCancelled ? nil : "the store did not answer a read within \(timeout)"
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// The `/ready` answer.
    public func response() async -> HTTPResponse {
        var response: HTTPResponse
        if let problem = await problem() {
            let body = try? JSONSerialization.data(withJSONObject: ["status": "unavailable", "reason": problem], options: [.sortedKeys])
            response = .json(bytes: body ?? Data(#"{"status":"unavailable"}"#.utf8))
            response.status = .serviceUnavailable
        } else {
            response = .json(bytes: Data(#"{"status":"ready"}"#.utf8))
        }
        response.headers.replaceOrAdd("Cache-Control", "no-store")
        return response
    }
}
