import Foundation
import StratusHTTP
import StratusServer
import StratusServerSQLite
import StratusTesting
import Testing

/// `/ready`'s check: ready while the store answers, unavailable (503, with the reason) when a read
/// fails or takes longer than the deadline — a PostgreSQL server gone away, a disk that hangs.
@Suite struct ReadinessCheckTests {
    /// A real store whose reads fail or stall on demand.
    struct FaultyStore: RecordStore {
        enum Fault: Sendable { case none, failing, stalled }
        let inner: SQLiteRecordStore
        let fault: Fault

        struct Unreachable: Error, CustomStringConvertible {
            var description: String { "connection refused" }
        }

        func read<T: Sendable>(_ body: @escaping @Sendable (any RecordStoreReader) throws -> T) async throws -> T {
            switch fault {
            case .none: break
            case .failing: throw Unreachable()
            case .stalled: try await Task.sleep(for: .seconds(60))
            }
            return try await inner.read(body)
        }

        func write<T: Sendable>(_ body: @escaping @Sendable (any RecordStoreWriter) throws -> T) async throws -> T {
            try await inner.write(body)
        }

        var rateBucketSharing: RateBucketSharing { inner.rateBucketSharing }
        var nodeCoordination: (any NodeCoordination)? { inner.nodeCoordination }

        func close() async throws { try await inner.close() }
    }

    @Test func readyWhileTheStoreAnswersUnavailableWhenItFailsOrStalls() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-ready")
        defer { directory.remove() }
        let store = try await SQLiteRecordStore.open(path: directory.path("stratus.sqlite"))
        let healthy = ReadinessCheck(store: FaultyStore(inner: store, fault: .none), timeout: .seconds(30))
        #expect(await healthy.problem() == nil)
        #expect(await healthy.response().status == .ok)

        let failing = await ReadinessCheck(store: FaultyStore(inner: store, fault: .failing)).problem()
        #expect(failing?.contains("connection refused") == true, "\(failing ?? "ready")")

        let started = ContinuousClock.now
        let stalled = ReadinessCheck(store: FaultyStore(inner: store, fault: .stalled), timeout: .milliseconds(200))
        let response = await stalled.response()
        #expect(response.status == .serviceUnavailable)
        #expect(String(decoding: response.body, as: UTF8.self).contains("within"))
        #expect(ContinuousClock.now - started < .seconds(30), "the deadline must end the check, not the stalled read")
        try await store.close()
    }
}
