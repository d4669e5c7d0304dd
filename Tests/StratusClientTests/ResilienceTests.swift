import Foundation
import StratusClient
import StratusHTTP
import StratusTesting
import StratusWire
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Retries, backoff, batch splitting, deadlines and cancellation.
@Suite struct ResilienceTests {
    static let zonesBody = #"{"zones":[{"zoneID":{"zoneName":"_defaultZone"},"syncToken":"t","atomic":false}]}"#

    /// A real HTTP server on loopback that answers database requests with `respond(request, index)`.
    static func withFakeServer(
        _ respond: @escaping @Sendable (HTTPRequest, Int) async throws -> HTTPResponse,
        configuration: ClientConfiguration,
        _ body: (Container) async throws -> Void
    ) async throws {
        let counter = Mutex(0)
        var router = Router()
        for method in [HTTPMethod.get, .post] {
            router.route(method, "/database/1/{container}/{environment}/{database}/{operation...}") { request in
                let index = counter.withLock {
                    $0 += 1
                    return $0 - 1
                }
                return try await respond(request, index)
            }
        }
        let server = try TestHTTPServer(responder: router)
        let container = Container(
            identifier: "iCloud.com.example.Tests", environment: .development, serverURL: server.url(""),
            authentication: .apiToken("token"), configuration: configuration)
        do {
            try await body(container)
        } catch {
            await server.stop(gracePeriod: .milliseconds(100))
            throw error
        }
        await server.stop(gracePeriod: .milliseconds(100))
    }

    static func throttled(retryAfter: Int?) -> HTTPResponse {
        let retry = retryAfter.map { #","retryAfter":\#($0)"# } ?? ""
        return .json(bytes: Data(#"{"uuid":"u","serverErrorCode":"THROTTLED","reason":"slow down"\#(retry)}"#.utf8), status: .tooManyRequests)
    }

    /// A server that throttles the first two requests: the SDK waits the server's retryAfter and succeeds on the third.
    @Test func throttledTwiceThenSucceedsHonouringRetryAfter() async throws {
        let sleeps = SleepRecorder()
        var configuration = ClientConfiguration.fastTests
        configuration.sleep = sleeps.sleep
        try await Self.withFakeServer(
            { _, index in
                index < 2 ? Self.throttled(retryAfter: 2) : .json(bytes: Data(Self.zonesBody.utf8))
            }, configuration: configuration
        ) { container in
            let zones = try await container.privateCloudDatabase.allRecordZones()
            #expect(zones.map(\.zoneID) == [.defaultZone])
        }
        #expect(sleeps.recorded == [.seconds(2), .seconds(2)])
    }

    /// Throttling is retried for writes too (nothing was applied), with exponential backoff when no retryAfter is given.
    @Test func backoffGrowsExponentiallyWithoutRetryAfter() async throws {
        let sleeps = SleepRecorder()
        var configuration = ClientConfiguration.fastTests
        configuration.sleep = sleeps.sleep
        configuration.random = { 0.5 }  // no jitter
        try await Self.withFakeServer(
            { _, index in
                index < 3 ? Self.throttled(retryAfter: nil) : .json(bytes: Data(#"{"records":[{"recordName":"x","deleted":true}]}"#.utf8))
            }, configuration: configuration
        ) { container in
            try await container.publicCloudDatabase.deleteRecord(withID: RecordID(recordName: "x"))
        }
        #expect(sleeps.recorded == [.milliseconds(200), .milliseconds(400), .milliseconds(800)])
    }

    /// Jitter spreads a computed wait by ±jitter, and long retryAfters are not waited for.
    @Test func jitterAndRetryAfterCap() {
        var policy = RetryPolicy()
        policy.jitter = 0.5
        #expect(policy.delay(beforeRetry: 1, retryAfter: nil, random: 0) == .milliseconds(100))
        #expect(policy.delay(beforeRetry: 1, retryAfter: nil, random: 0.999_999)?.isAlmost(.milliseconds(300)) == true)
        #expect(policy.delay(beforeRetry: 2, retryAfter: .seconds(7), random: 0) == .seconds(7))
        #expect(policy.delay(beforeRetry: 2, retryAfter: .seconds(3600), random: 0) == nil)
        #expect(policy.delay(beforeRetry: 4, retryAfter: nil, random: 0.5) == nil, "4 attempts in all")
        policy.initialBackoff = .seconds(20)
        #expect(policy.delay(beforeRetry: 3, retryAfter: nil, random: 0.5) == .seconds(30), "capped")
    }

    /// After the last attempt the throttling error reaches the caller with its retryAfter.
    @Test func givesUpAfterMaximumAttempts() async throws {
        let sleeps = SleepRecorder()
        var configuration = ClientConfiguration.fastTests
        configuration.sleep = sleeps.sleep
        try await Self.withFakeServer({ _, _ in Self.throttled(retryAfter: 1) }, configuration: configuration) { container in
            let error = try await #require(throws: StratusError.self) { try await container.privateCloudDatabase.allRecordZones() }
            #expect(error.code == .requestRateLimited)
            #expect(error.retryAfter == .seconds(1))
            #expect(error.httpStatus == 429)
        }
        #expect(sleeps.recorded.count == 3)
    }

    /// Network failures are retried for reads but not for writes (which may have been applied).
    @Test func networkFailuresAreRetriedOnlyForReads() async throws {
        let transport = FakeTransport { _, _ in throw URLError(.networkConnectionLost) }
        let container = Container(
            identifier: "iCloud.x", environment: .development, serverURL: URL(string: "http://127.0.0.1:1")!,
            authentication: .none, configuration: .fastTests, transport: transport)
        await #expect(throws: StratusError.self) { try await container.privateCloudDatabase.allRecordZones() }
        #expect(transport.sent.count == 4)
        await #expect(throws: StratusError.self) { try await container.privateCloudDatabase.deleteRecord(withID: RecordID(recordName: "x")) }
        #expect(transport.sent.count == 5, "a write is sent once")
    }

    /// The real server refuses batches over its operation limit; the SDK halves them until they fit.
    @Test func limitExceededSplitsTheBatchInHalf() async throws {
        let recording = RecordingTransport(URLSessionTransport())
        try await LiveFixture.run(configureServer: { $0.maximumOperationsPerRequest = 3 }, transport: recording) { fixture in
            let db = fixture.database
            let records = (0..<10).map { index in
                var record = Record(recordType: "Note", recordID: RecordID(recordName: "s\(index)"))
                record["index"] = index
                return record
            }
            let results = try await db.modifyRecords(saving: records, deleting: [], atomically: true)
            #expect(results.saveResults.count == 10)
            #expect(results.saveResults.values.allSatisfy { (try? $0.get()) != nil }, "the default zone is never atomic, so it may split")
            let sizes = try recording.exchanges.map { exchange in
                ((try jsonObject(exchange.request.body)["operations"] as? [Any])?.count ?? 0, exchange.status)
            }
            #expect(sizes.map(\.0) == [10, 5, 2, 3, 5, 2, 3])
            #expect(sizes.map(\.1) == [400, 400, 200, 200, 400, 200, 200])

            // In a custom zone an atomic batch cannot be split: every item fails with limitExceeded.
            let zone = try await db.save(RecordZone(zoneName: "Strict"))
            let zoned = (0..<4).map { Record(recordType: "Note", recordID: RecordID(recordName: "z\($0)", zoneID: zone.zoneID)) }
            let atomic = try await db.modifyRecords(saving: zoned, deleting: [], atomically: true)
            for record in zoned {
                let error = try #require(throws: StratusError.self) { try atomic.saveResults[record.recordID]?.get() }
                #expect(error.code == .limitExceeded)
            }
            let relaxed = try await db.modifyRecords(saving: zoned, deleting: [], atomically: false)
            #expect(relaxed.saveResults.values.allSatisfy { (try? $0.get()) != nil })
        }
    }

    /// A request that outlives its deadline fails with networkFailure (timedOut) on time.
    @Test func requestsEndAtTheirDeadline() async throws {
        var configuration = ClientConfiguration.fastTests
        configuration.requestTimeout = .milliseconds(300)
        configuration.retryPolicy = .never
        try await Self.withFakeServer(
            { _, _ in
                try await Task.sleep(for: .seconds(120))
                return .json(bytes: Data(Self.zonesBody.utf8))
            }, configuration: configuration
        ) { container in
            let clock = ContinuousClock()
            let start = clock.now
            let error = try await #require(throws: StratusError.self) { try await container.privateCloudDatabase.allRecordZones() }
            let elapsed = clock.now - start
            #expect(error.code == .networkFailure)
            #expect((error.underlying as? URLError)?.code == .timedOut)
            #expect(elapsed < .seconds(60), "took \(elapsed); the server would have answered after 120 s")
            #expect(elapsed >= .milliseconds(250))
        }
    }

    /// Cancelling the calling task stops an in-flight request promptly with CancellationError.
    @Test func cancellationPropagates() async throws {
        try await Self.withFakeServer(
            { _, _ in
                try await Task.sleep(for: .seconds(120))
                return .json(bytes: Data(Self.zonesBody.utf8))
            }, configuration: .fastTests
        ) { container in
            let clock = ContinuousClock()
            let start = clock.now
            let task = Task { try await container.privateCloudDatabase.allRecordZones() }
            try await Task.sleep(for: .milliseconds(200))
            task.cancel()
            let result = await task.result
            let elapsed = clock.now - start
            #expect(throws: CancellationError.self) { try result.get() }
            #expect(elapsed < .seconds(60), "took \(elapsed); the server would have answered after 120 s")
        }
    }
}

extension Duration {
    /// Whether two durations differ by less than a millisecond.
    func isAlmost(_ other: Duration) -> Bool {
        abs((self - other).components.attoseconds) < 1_000_000_000_000_000 && (self - other).components.seconds == 0
    }
}
