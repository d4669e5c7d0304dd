import Foundation
import StratusHTTP
import StratusWire

extension CloudKitService {
    /// The URL template of the token operations.
    public static let deviceTemplate = "/device/1/{container}/{environment}/{operation...}"
    /// The URL template of web courier long-polls.
    public static let courierTemplate = "/courier/{token}"

    /// Adds the token, courier and asset routes (called by ``register(on:)``).
    func registerPushAndAssetRoutes(on router: inout Router) {
        router.route(.post, Self.deviceTemplate, check: { [self] head in try screenCredentials(head) }) { [self] request in
            try await handleDevice(request)
        }
        router.route(.get, Self.courierTemplate) { [self] request in
            try await pollCourier(request)
        }
        registerAssetRoutes(on: &router)
    }

    /// Starts shutting down push delivery: every parked courier poll answers at once with an
    /// empty body, and later polls do too, so the HTTP server can stop without waiting for them;
    /// push fan-out starts no new batch (the outbox keeps what is left for the next start).
    public func beginShutdown() {
        courier.close()
        fanout.close()
        apns.close()
    }

    /// Shuts push delivery down (``beginShutdown()``) and waits for the fan-out batch in progress,
    /// if any, so the store can be closed next.
    ///
    /// ```swift
    /// await service.shutdown()
    /// await server.shutdown()
    /// try await store.close()
    /// ```
    public func shutdown() async {
        beginShutdown()
        await fanout.idle()
        await apns.shutdown()
    }

    /// Fans out whatever the push outbox holds now, then again every
    /// ``PushConfiguration/outboxSweepInterval`` until shutdown.
    ///
    /// Writes fan out their own changes right after they commit; this catches changes a node
    /// committed but did not fan out because it stopped in between (a crash, `kill -9`), on this
    /// node or — with PostgreSQL — any other. `stratus serve` calls it at start.
    public func startPushFanoutSweeps() {
        fanout.startSweeping()
    }

    /// Fans out every change the push outbox holds, now, returning when it is empty.
    ///
    /// - Throws: Store errors.
    public func drainPushOutbox() async throws {
        try await fanout.drain()
    }

    // MARK: Tokens

    /// `tokens/create` and `tokens/register` under `/device/1/{container}/{environment}/`.
    func handleDevice(_ request: HTTPRequest) async throws -> HTTPResponse {
        let operationName = try request.parameter("operation")
        guard let operation = EndpointOperation(rawValue: operationName), operation.module == .device else {
            throw HTTPError.endpointNotFound
        }
        let environmentName = try request.parameter("environment")
        guard let environment = Environment(rawValue: environmentName) else {
            throw ServiceError.badRequest("unknown environment '\(environmentName)'; use 'development' or 'production'")
        }
        let container = try request.parameter("container")
        // Push tokens belong to users: both operations need a signed-in user (421 otherwise), as
        // the private database does; server-to-server keys get the opaque 401.
        let principal = try await admit(request, operation: operation, scope: .private, container: container, environment: environment)
        let caller = principal.userRecordName ?? Principal.anonymousRecordName
        switch operation {
        case .tokensCreate: return try await createToken(request, caller: caller, container: container, environment: environment)
        default: return try await registerToken(request, caller: caller, container: container, environment: environment)
        }
    }

    /// `tokens/create`: a new token owned by the caller, for this container environment only;
    /// `QUOTA_EXCEEDED` past ``PushConfiguration/maximumTokensPerUser`` live ones.
    private func createToken(_ request: HTTPRequest, caller: String, container: String, environment: Environment) async throws -> HTTPResponse {
        let body = try Self.decodeBody(TokensCreate.Request.self, request)
        let now = configuration.now()
        let lifetime = configuration.push.tokenLifetime
        let limit = configuration.push.maximumTokensPerUser
        let token = PushTokenRow(
            token: try configuration.push.makeToken(), container: container, environment: environment,
            apnsEnvironment: body.apnsEnvironment.rawValue, user: nil, owner: caller, createdAt: now, expiresAt: now + lifetime * 1000
        )
        try await store.write { tx in
            _ = try tx.deleteExpiredPushTokens(now: now)
            guard try tx.pushTokenCount(ownedBy: caller, container: container, environment: environment, now: now) < limit else {
                throw ServiceError(
                    .quotaExceeded,
                    "this user already holds \(limit) live push tokens in \(container) (\(environment.rawValue)), the most allowed; "
                        + "keep using one of them, or wait until one expires (tokens live \(lifetime / 3600) h)"
                )
            }
            try tx.createPushToken(token)
        }
        let url = baseURL(for: request) + "/courier/\(token.token)?ttl=\(lifetime)"
        let response = TokensCreate.Response(apnsEnvironment: body.apnsEnvironment, apnsToken: token.token, webcourierURL: url)
        return .json(bytes: try WireCoding.encode(response))
    }

    /// `tokens/register`: binds a token to the caller — only the user who created it, and only in
    /// the container environment it was created for. Any other token is `NOT_FOUND`, exactly as
    /// one that does not exist, so the answer tells nothing about other users' tokens. An APNs
    /// device token (hexadecimal, from the app's `registerForRemoteNotifications`) is registered
    /// to the caller instead (``registerDeviceToken(_:_:caller:container:environment:)``).
    private func registerToken(_ request: HTTPRequest, caller: String, container: String, environment: Environment) async throws -> HTTPResponse {
        let body = try Self.decodeBody(TokensRegister.Request.self, request)
        if let device = APNsDeviceTokenFormat.normalized(body.apnsToken) {
            return try await registerDeviceToken(device, body.apnsEnvironment, caller: caller, container: container, environment: environment)
        }
        let now = configuration.now()
        let bound = try await store.write { tx in
            try tx.bindPushToken(body.apnsToken, to: caller, container: container, environment: environment, now: now)
        }
        guard bound else {
            throw ServiceError(.notFound, "this push token does not exist here or has expired; create a new one with tokens/create")
        }
        return .json(bytes: Data("{}".utf8))
    }

    private static func decodeBody<T: Decodable>(_ type: T.Type, _ request: HTTPRequest) throws(ServiceError) -> T {
        do {
            return try WireCoding.decode(type, from: request.body.isEmpty ? Data("{}".utf8) : request.body)
        } catch {
            throw ServiceError.badRequest(error.reason)
        }
    }

    // MARK: Courier

    /// `GET /courier/{token}`: one queued notification's JSON, or an empty body when none arrives in time.
    func pollCourier(_ request: HTTPRequest) async throws -> HTTPResponse {
        let tokenValue = try request.parameter("token")
        let now = configuration.now()
        guard let token = try await store.read({ try $0.pushToken(tokenValue) }), token.expiresAt > now else {
            throw ServiceError(.notFound, "this courier token does not exist or has expired; create a new one with tokens/create")
        }
        guard let payload = try await courier.poll(token, timeout: configuration.push.pollTimeout) else {
            return HTTPResponse(status: .ok, headers: ["Cache-Control": "no-store"])
        }
        var response = HTTPResponse.json(bytes: Data(payload))
        response.headers.replaceOrAdd("Cache-Control", "no-store")
        return response
    }

    /// The base of every URL the server hands out (sign-in, verification, courier, assets), without a
    /// trailing slash — never the client's `Host` header unchecked:
    ///
    /// 1. the configured ``ServiceConfiguration/publicBaseURL``;
    /// 2. in open mode, the request's scheme + the `Host` header, which the open-mode guard has already checked
    ///    to be a loopback name (so a browser on `localhost` keeps its origin);
    /// 3. otherwise the server's own address the request arrived at (``HTTPRequest/localAddress``,
    ///    from the socket), with the request's scheme (`https` only through a trusted proxy).
    ///
    /// A `Host: evil.example` therefore never becomes a sign-in link to `evil.example`.
    func baseURL(for request: HTTPRequest) -> String {
        if var base = configuration.publicBaseURL {
            while base.hasSuffix("/") { base.removeLast() }
            return base
        }
        if !configuration.authentication.requiresAuthentication, let host = request.headers["Host"], Loopback.isLoopbackAuthority(host) {
            return request.scheme + "://" + host
        }
        return request.scheme + "://" + (request.localAddress ?? "127.0.0.1")
    }
}
