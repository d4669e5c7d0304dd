import Foundation
import StratusClient
import StratusTesting
import StratusWire
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `notificationEvents()` says when pushes can reach the device (issue 23, defect 4), and the
/// courier's backoff neither jumps to its maximum after four failures nor outlives a reconnection
/// (defect 10).
@Suite struct CourierEventsTests {
    private static let created =
        #"{"apnsEnvironment":"development","apnsToken":"t","webcourierURL":"http://courier.test/courier/t?ttl=3600"}"#
    private static let push = #"{"ck":{"nid":"n","fet":{"zid":"Z","dbs":2,"sid":"s"}}}"#

    /// A poll the server holds until the client gives up (cancellation).
    private static func parked() async throws -> TransportResponse {
        try await Task.sleep(for: .seconds(600))
        return TransportResponse(status: 200)
    }

    /// The API side: `tokens/create` fails with the network down for the calls in `down`.
    private static func api(down: Range<Int> = 0..<0) -> FakeTransport {
        let creates = Mutex(0)
        return FakeTransport { request, _ in
            guard request.url.path.hasSuffix("tokens/create") else { return TransportResponse(status: 200, body: Data("{}".utf8)) }
            let call = creates.withLock { count in
                defer { count += 1 }
                return count
            }
            if down.contains(call) { throw URLError(.notConnectedToInternet) }
            return TransportResponse(status: 200, body: Data(Self.created.utf8))
        }
    }

    private static func container(_ transport: FakeTransport) throws -> Container {
        Container(
            identifier: "iCloud.com.example.Tests", environment: .development, serverURL: try #require(URL(string: "http://api.test")),
            authentication: .apiToken("a", webAuthToken: "w"), configuration: .fastTests, transport: transport)
    }

    private static func configuration(_ courier: FakeTransport, sleeps: SleepRecorder) -> NotificationConfiguration {
        var configuration = NotificationConfiguration()
        configuration.transport = courier
        configuration.sleep = sleeps.sleep
        configuration.random = { 0.5 }
        return configuration
    }

    /// The first event is `listening`, sent once the token is registered and before the first poll.
    @Test func theFirstEventSaysTheTokenIsRegistered() async throws {
        let api = Self.api()
        let courier = FakeTransport { _, index in
            index == 0 ? TransportResponse(status: 200, body: Data(Self.push.utf8)) : try await Self.parked()
        }
        let events = try Self.container(api).notificationEvents(configuration: Self.configuration(courier, sleeps: SleepRecorder()))
        var iterator = events.makeAsyncIterator()
        #expect(try await iterator.next() == .listening)
        #expect(api.sent.contains { $0.url.path.hasSuffix("tokens/register") })
        guard case .notification(let notification)? = try await iterator.next() else {
            Issue.record("expected a notification")
            return
        }
        #expect(notification.zoneID?.zoneName == "Z")
    }

    /// A reconnection that needed a new token says `listening` again (pushes sent meanwhile went to
    /// the old token: the caller catches up).
    @Test func aReconnectionWithANewTokenSaysListeningAgain() async throws {
        let courier = FakeTransport { _, index in
            switch index {
            case 0, 1: throw URLError(.notConnectedToInternet)
            case 2: return TransportResponse(status: 200, body: Data(Self.push.utf8))
            default: return try await Self.parked()
            }
        }
        let events = try Self.container(Self.api()).notificationEvents(configuration: Self.configuration(courier, sleeps: SleepRecorder()))
        var seen: [NotificationEvent] = []
        for try await event in events {
            seen.append(event)
            if case .notification = event { break }
        }
        #expect(seen.count == 3)
        #expect(seen.prefix(2) == [.listening, .listening])
    }

    /// A failed poll that kept its token says `listening` with the first answer after it: a push the
    /// server handed to the lost connection is not coming again, so the caller catches up.
    @Test func aReconnectionThatKeptItsTokenSaysListeningWithTheNextAnswer() async throws {
        let courier = FakeTransport { _, index in
            switch index {
            case 0: throw URLError(.networkConnectionLost)
            case 1: return TransportResponse(status: 200, body: Data(Self.push.utf8))
            default: return try await Self.parked()
            }
        }
        let api = Self.api()
        let events = try Self.container(api).notificationEvents(configuration: Self.configuration(courier, sleeps: SleepRecorder()))
        var seen: [NotificationEvent] = []
        for try await event in events {
            seen.append(event)
            if case .notification = event { break }
        }
        #expect(seen.prefix(2) == [.listening, .listening])
        #expect(seen.count == 3)
        #expect(api.sent.filter { $0.url.path.hasSuffix("tokens/create") }.count == 1)
    }

    /// Failures in a row wait 0.5, 1, 2, 4, 8 s (not the minute-long maximum from the fourth on), and
    /// once the network is back and a token registered, the next failure waits half a second again.
    @Test func backoffFollowsTheCurveAndResetsAfterAReconnection() async throws {
        // Two failed polls drop the token; three token creations fail (the network is down); the fourth
        // works; the poll after it fails once more, then a push comes.
        let api = Self.api(down: 1..<4)
        let courier = FakeTransport { _, index in
            switch index {
            case 0, 1, 2: throw URLError(.notConnectedToInternet)
            case 3: return TransportResponse(status: 200, body: Data(Self.push.utf8))
            default: return try await Self.parked()
            }
        }
        let sleeps = SleepRecorder()
        var iterator = try Self.container(api).notifications(configuration: Self.configuration(courier, sleeps: sleeps)).makeAsyncIterator()
        #expect(try await iterator.next()?.zoneID?.zoneName == "Z")
        #expect(sleeps.recorded == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .milliseconds(500)])
    }

    /// With the network down for long, the waits still stop growing at the maximum.
    @Test func longOutagesWaitAtMostTheMaximum() async throws {
        let failures = 12
        let courier = FakeTransport { _, index in
            if index < failures { throw URLError(.networkConnectionLost) }
            return index == failures ? TransportResponse(status: 200, body: Data(Self.push.utf8)) : try await Self.parked()
        }
        let sleeps = SleepRecorder()
        var iterator = try Self.container(Self.api()).notifications(configuration: Self.configuration(courier, sleeps: sleeps))
            .makeAsyncIterator()
        _ = try await iterator.next()
        #expect(sleeps.recorded.count == failures)
        #expect(sleeps.recorded.max() == .seconds(60))
        #expect(sleeps.recorded.prefix(7) == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(32)])
    }
}
