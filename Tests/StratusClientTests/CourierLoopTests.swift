import Foundation
import StratusClient
import StratusWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The web courier loop without a server: backoff, reconnection and token replacement.
@Suite struct CourierLoopTests {
    private static let created =
        #"{"apnsEnvironment":"development","apnsToken":"t","webcourierURL":"http://courier.test/courier/t?ttl=3600"}"#

    /// A poll the server holds until the client gives up (cancellation).
    private static func parked() async throws -> TransportResponse {
        try await Task.sleep(for: .seconds(600))
        return TransportResponse(status: 200)
    }

    /// An immediate empty answer is not a keep-alive: the loop backs off instead of spinning.
    @Test func immediateEmptyAnswersBackOff() async throws {
        let courier = FakeTransport { _, index in
            switch index {
            case 0..<3: TransportResponse(status: 200)
            case 3: TransportResponse(status: 200, body: Data(#"{"ck":{"met":{"sid":"x"}}}"#.utf8))
            default: try await Self.parked()
            }
        }
        let sleeps = SleepRecorder()
        var configuration = NotificationConfiguration()
        configuration.transport = courier
        configuration.sleep = sleeps.sleep
        configuration.random = { 0.5 }
        configuration.minimumEmptyPollDuration = .seconds(600)  // however loaded the machine, these are "at once"
        var iterator = try container(api()).notifications(configuration: configuration).makeAsyncIterator()
        #expect(try await iterator.next()?.subscriptionID == "x")
        #expect(sleeps.recorded == [.milliseconds(500), .milliseconds(1000), .milliseconds(2000)])
    }

    private func api() -> FakeTransport {
        FakeTransport { request, _ in
            let body = request.url.path.hasSuffix("tokens/create") ? Self.created : "{}"
            return TransportResponse(status: 200, body: Data(body.utf8))
        }
    }

    private func container(_ transport: FakeTransport) throws -> Container {
        Container(
            identifier: "iCloud.com.example.Tests", environment: .development, serverURL: try #require(URL(string: "http://api.test")),
            authentication: .apiToken("a", webAuthToken: "w"), configuration: .fastTests, transport: transport)
    }

    @Test func failuresBackOffExponentiallyAndRemakeTheToken() async throws {
        let api = api()
        let courier = FakeTransport { _, index in
            switch index {
            case 0: throw URLError(.networkConnectionLost)
            case 1: return TransportResponse(status: 503)
            case 2: return TransportResponse(status: 200, body: Data(#"{"ck":{"nid":"n","fet":{"zid":"Z","dbs":2,"sid":"s"}}}"#.utf8))
            default: return try await Self.parked()
            }
        }
        let sleeps = SleepRecorder()
        var configuration = NotificationConfiguration()
        configuration.transport = courier
        configuration.sleep = sleeps.sleep
        configuration.random = { 0.5 }
        var iterator = try container(api).notifications(configuration: configuration).makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.kind == .recordZone)
        #expect(first?.zoneID?.zoneName == "Z")
        #expect(first?.databaseScope == .private)
        #expect(sleeps.recorded == [.milliseconds(500), .milliseconds(1000)])
        // The second failure in a row replaced the token; each token was registered.
        #expect(api.sent.filter { $0.url.path.hasSuffix("tokens/create") }.count == 2)
        #expect(api.sent.filter { $0.url.path.hasSuffix("tokens/register") }.count == 2)
        #expect(courier.sent.allSatisfy { $0.url.absoluteString == "http://courier.test/courier/t?ttl=3600" && $0.method == "GET" })
        #expect(courier.sent.first?.timeout == configuration.pollTimeout)
    }

    @Test func anExpiredCourierTokenIsReplaced() async throws {
        let api = api()
        let courier = FakeTransport { _, index in
            switch index {
            case 0: TransportResponse(status: 404, body: Data(#"{"serverErrorCode":"NOT_FOUND","reason":"expired"}"#.utf8))
            case 1: TransportResponse(status: 200, body: Data(#"{"ck":{"met":{"dbs":2,"sid":"d"}}}"#.utf8))
            default: try await Self.parked()
            }
        }
        var configuration = NotificationConfiguration()
        configuration.transport = courier
        configuration.sleep = { _ in }
        var iterator = try container(api).notifications(configuration: configuration).makeAsyncIterator()
        #expect(try await iterator.next()?.subscriptionID == "d")
        #expect(api.sent.filter { $0.url.path.hasSuffix("tokens/create") }.count == 2)
    }

    @Test func productionContainersAskForProductionTokens() async throws {
        let api = api()
        let courier = FakeTransport { _, index in
            index == 0 ? TransportResponse(status: 200, body: Data(#"{"ck":{"met":{}}}"#.utf8)) : try await Self.parked()
        }
        var configuration = NotificationConfiguration()
        configuration.transport = courier
        let production = Container(
            identifier: "iCloud.com.example.Tests", environment: .production, serverURL: try #require(URL(string: "http://api.test")),
            authentication: .apiToken("a", webAuthToken: "w"), configuration: .fastTests, transport: api)
        var iterator = production.notifications(configuration: configuration).makeAsyncIterator()
        _ = try await iterator.next()
        let create = try #require(api.sent.first { $0.url.path.hasSuffix("tokens/create") })
        #expect(create.url.path == "/device/1/iCloud.com.example.Tests/production/tokens/create")
        #expect(try jsonObject(create.body)["apnsEnvironment"] as? String == "production")
    }
}
