import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A device's courier token: its long-poll URL on the test server.
struct CourierDevice: Sendable {
    let token: String
    let url: URL
    let port: UInt16

    /// The path and query of the courier URL.
    var target: String { url.path + (url.query.map { "?" + $0 } ?? "") }

    /// One long-poll: the notification, or `nil` for the empty timeout answer.
    func poll(timeout: Int = 20) async throws -> CourierNotification? {
        let reply = try await rawPoll(timeout: timeout)
        guard reply.status == 200 else {
            throw PushTestFailure(description: "courier poll answered \(reply.status ?? 0): \(String(decoding: reply.body, as: UTF8.self))")
        }
        let body = reply.body
        if body.isEmpty { return nil }
        return try WireCoding.decode(CourierNotification.self, from: body)
    }

    /// One long-poll's raw reply.
    func rawPoll(timeout: Int = 20) async throws -> RawHTTPConnection.Reply {
        try await RawHTTPConnection.exchange(
            port: port, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n", timeout: timeout
        )
    }

    /// The next notification, polling again while the courier answers empty: fan-out runs after
    /// the write's commit, so a short poll timeout can pass before it on a slow run (a sanitizer's).
    /// The 60 s (scaled) are a hang guard only; `nil` once they are spent.
    func next() async throws -> CourierNotification? {
        var received: CourierNotification?
        _ = try await eventually(timeout: .seconds(60)) {
            received = try await poll()
            return received != nil
        }
        return received
    }

    /// Polls until `count` notifications arrived (each poll returns one), failing on an empty poll.
    func drain(_ count: Int) async throws -> [CourierNotification] {
        var received: [CourierNotification] = []
        for _ in 0..<count {
            guard let notification = try await poll() else {
                Issue.record("expected \(count) notifications, the courier had \(received.count)")
                return received
            }
            received.append(notification)
        }
        return received
    }
}

extension TestCloudKitServer {
    /// POSTs to `/device/1/{container}/{environment}/{operation}`.
    func postDevice(_ operation: String, _ body: String, environment: String = "development") async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: http.url("/device/1/\(TestCloudKitServer.container)/\(environment)/\(operation)"))
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// `tokens/create` then `tokens/register`: a device that receives the caller's pushes.
    func registerDevice(register: Bool = true) async throws -> CourierDevice {
        let (status, data) = try await postDevice("tokens/create", #"{"apnsEnvironment":"development"}"#)
        guard status == 200 else { throw PushTestFailure(description: "tokens/create answered \(status)") }
        let created = try WireCoding.decode(TokensCreate.Response.self, from: data)
        if register {
            let body = #"{"apnsEnvironment":"development","apnsToken":"\#(created.apnsToken)"}"#
            let (registered, _) = try await postDevice("tokens/register", body)
            guard registered == 200 else { throw PushTestFailure(description: "tokens/register answered \(registered)") }
        }
        guard let url = URL(string: created.webcourierURL) else { throw PushTestFailure(description: "bad courier URL \(created.webcourierURL)") }
        return CourierDevice(token: created.apnsToken, url: url, port: http.port)
    }

    /// `subscriptions/modify` with the given operations.
    func modifySubscriptions(_ operations: [SubscriptionOperation], database: String = "private") async throws -> [SubscriptionResult] {
        try await send(
            "subscriptions/modify", SubscriptionsModify.Request(operations: operations), as: SubscriptionsModify.Response.self, database: database
        ).subscriptions
    }

    /// Creates one subscription, failing the test on an error.
    func subscribe(_ subscription: Subscription, database: String = "private") async throws {
        let results = try await modifySubscriptions([.create(subscription)], database: database)
        if case .error(let error)? = results.first { Issue.record("subscription failed: \(error)") }
    }
}

/// A courier or device call that went wrong.
struct PushTestFailure: Error, CustomStringConvertible {
    var description: String
}
