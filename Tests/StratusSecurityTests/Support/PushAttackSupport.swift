import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// What the push attacks (findings 2b, 5, 6 and 17) share: a server that requires sign-in,
/// users' devices on the web courier, and subscriptions made over the wire.
enum PushAttack {
    /// Runs `body` against a fresh authenticated server on `backend`, stopping it afterwards.
    static func withServer(
        _ backend: RecordStoreBackend, configure: (inout ServiceConfiguration) -> Void = { _ in },
        _ body: (TestCloudKitServer) async throws -> Void
    ) async throws {
        try await TestCloudKitServer.withStarted(backend: backend, authenticated: true, configure: configure, body)
    }

    /// `/device/1/{container}/{environment}/tokens/{operation}`.
    static func devicePath(_ operation: String, container: String = TestCloudKitServer.container, environment: String = "development") -> String {
        "/device/1/\(container)/\(environment)/tokens/\(operation)"
    }

    /// `tokens/create` as the holder of `query`'s credentials.
    static func createToken(
        on server: TestCloudKitServer, query: [(String, String)], container: String = TestCloudKitServer.container,
        environment: String = "development"
    ) async throws -> TestCloudKitServer.Reply {
        try await server.exchange(
            devicePath("create", container: container, environment: environment), body: Data(#"{"apnsEnvironment":"development"}"#.utf8),
            query: query
        )
    }

    /// `tokens/register` of `token` as the holder of `query`'s credentials.
    static func registerToken(
        _ token: String, on server: TestCloudKitServer, query: [(String, String)], container: String = TestCloudKitServer.container,
        environment: String = "development"
    ) async throws -> TestCloudKitServer.Reply {
        try await server.exchange(
            devicePath("register", container: container, environment: environment),
            body: Data(#"{"apnsEnvironment":"development","apnsToken":"\#(token)"}"#.utf8), query: query
        )
    }

    /// A device of `user`: a token created and registered by them.
    static func device(of user: TestCloudKitServer.SignedInUser, on server: TestCloudKitServer, register: Bool = true) async throws -> Device {
        let created = try await createToken(on: server, query: user.query)
        #expect(created.status == 200, "tokens/create: \(created.text)")
        let token = try #require(created.json["apnsToken"]?.stringValue, "\(created.text)")
        let url = try #require(created.json["webcourierURL"]?.stringValue.flatMap(URL.init(string:)), "\(created.text)")
        if register {
            let registered = try await registerToken(token, on: server, query: user.query)
            #expect(registered.status == 200, "tokens/register: \(registered.text)")
        }
        return Device(token: token, target: url.path + (url.query.map { "?" + $0 } ?? ""), port: server.http.port)
    }

    /// One `subscriptions/modify` create from JSON; the reply.
    static func subscribe(
        _ subscriptionJSON: String, as user: TestCloudKitServer.SignedInUser, on server: TestCloudKitServer, database: String = "public"
    ) async throws -> TestCloudKitServer.Reply {
        try await server.exchange(
            "subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":\#(subscriptionJSON)}]}"#, database: database,
            query: user.query
        )
    }

    /// `user`'s query subscription `id` on creations of `type` in the public database, and a device
    /// that receives it.
    static func watchCreations(
        of type: String, id: String, as user: TestCloudKitServer.SignedInUser, on server: TestCloudKitServer
    )
        async throws -> Device
    {
        let reply = try await subscribe(
            #"{"subscriptionID":"\#(id)","subscriptionType":"query","query":{"recordType":"\#(type)"},"firesOn":["create"]}"#, as: user, on: server
        )
        #expect(reply.itemErrorCodes("subscriptions") == [nil], "\(reply.text)")
        return try await device(of: user, on: server)
    }

    /// A one-record create in `database` as `user`; the reply.
    static func create(
        _ name: String, type: String, fields: String = "{}", as user: TestCloudKitServer.SignedInUser, on server: TestCloudKitServer,
        database: String = "public"
    ) async throws -> TestCloudKitServer.Reply {
        let body = #"{"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"\#(type)","fields":\#(fields)}}]}"#
        return try await server.exchange("records/modify", body, database: database, query: user.query)
    }

    /// A web-courier device: its token and long-poll target.
    struct Device: Sendable {
        let token: String
        let target: String
        let port: UInt16

        /// One long-poll's raw reply.
        func poll(timeout: Int = 20) async throws -> RawHTTPConnection.Reply {
            try await RawHTTPConnection.exchange(
                port: port, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n", timeout: timeout
            )
        }

        /// One long-poll that must answer 200: the notification, or `nil` for the empty answer.
        func notification(timeout: Int = 20) async throws -> CourierNotification? {
            let reply = try await poll(timeout: timeout)
            #expect(reply.status == 200, "courier answered \(reply.status ?? 0): \(String(decoding: reply.body, as: UTF8.self))")
            return reply.body.isEmpty ? nil : try WireCoding.decode(CourierNotification.self, from: reply.body)
        }

        /// The next notification, polling again while the courier answers empty: fan-out runs after
        /// the write's commit and can outlast a short poll timeout on a slow run (a sanitizer's).
        /// The 60 s (scaled) are a hang guard only; `nil` once they are spent.
        func nextNotification() async throws -> CourierNotification? {
            var received: CourierNotification?
            _ = try await eventually(timeout: .seconds(60)) {
                received = try await notification()
                return received != nil
            }
            return received
        }
    }
}

extension TestCloudKitServer.Reply {
    /// The `serverErrorCode` of each item of a batch reply (`nil` for a success), under `key`.
    func itemErrorCodes(_ key: String) -> [String?] {
        guard case .object(let object) = json, case .array(let items)? = object[key] else { return [] }
        return items.map { item in
            guard case .object(let fields) = item, case .string(let code)? = fields["serverErrorCode"] else { return nil }
            return code
        }
    }

    /// The `reason` of each item of a batch reply (`nil` for a success), under `key`.
    func itemReasons(_ key: String) -> [String?] {
        guard case .object(let object) = json, case .array(let items)? = object[key] else { return [] }
        return items.map { item in
            guard case .object(let fields) = item, case .string(let reason)? = fields["reason"] else { return nil }
            return reason
        }
    }

    /// The request-level `reason`.
    var reason: String? {
        if case .object(let object) = json, case .string(let reason)? = object["reason"] { return reason }
        return nil
    }
}
