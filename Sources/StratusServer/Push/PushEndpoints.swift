import Foundation
import StratusHTTP
import StratusWire

/// Push tokens and the web courier: `tokens/create` and `tokens/register` under
/// `/device/1/{container}/{environment}/` (web courier tokens, and APNs device tokens), and the
/// courier's long-polls `GET /courier/{token}` (design notes 0007 and 0013).
struct PushEndpoints: EndpointGroup {
    /// The URL template of the token operations.
    static let deviceTemplate = "/device/1/{container}/{environment}/{operation...}"
    /// The URL template of web courier long-polls.
    static let courierTemplate = "/courier/{token}"

    let store: any RecordStore
    let admission: RequestAdmission
    let courier: WebCourier
    let configuration: ServiceConfiguration

    func register(on router: inout Router) {
        router.route(.post, Self.deviceTemplate, check: { [admission] head in try admission.screenCredentials(head) }) { request in
            try await handleDevice(request)
        }
        router.route(.get, Self.courierTemplate) { request in
            try await pollCourier(request)
        }
    }

    // MARK: Tokens

    /// `tokens/create` and `tokens/register` under `/device/1/{container}/{environment}/`.
    func handleDevice(_ request: HTTPRequest) async throws -> HTTPResponse {
        let operationName = try request.parameter("operation")
        guard let operation = EndpointOperation(rawValue: operationName), operation.module == .device else {
            throw HTTPError.endpointNotFound
        }
        let environment = try RequestAdmission.environment(of: request)
        let container = try request.parameter("container")
        // Push tokens belong to users: both operations need a signed-in user (421 otherwise), as
        // the private database does; server-to-server keys get the opaque 401.
        let principal = try await admission.admit(request, operation: operation, scope: .private, container: container, environment: environment)
        let caller = principal.userRecordName ?? Principal.anonymousRecordName
        switch operation {
        case .tokensCreate: return try await createToken(request, caller: caller, container: container, environment: environment)
        default: return try await registerToken(request, caller: caller, container: container, environment: environment)
        }
    }

    /// `tokens/create`: a new token owned by the caller, for this container environment only;
    /// `QUOTA_EXCEEDED` past ``PushConfiguration/maximumTokensPerUser`` live ones.
    private func createToken(_ request: HTTPRequest, caller: String, container: String, environment: Environment) async throws -> HTTPResponse {
        let body = try request.decodeBody(TokensCreate.Request.self)
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
        let url = admission.baseURL.base(for: request) + "/courier/\(token.token)?ttl=\(lifetime)"
        let response = TokensCreate.Response(apnsEnvironment: body.apnsEnvironment, apnsToken: token.token, webcourierURL: url)
        return .json(bytes: try WireCoding.encode(response))
    }

    /// `tokens/register`: binds a token to the caller — only the user who created it, and only in
    /// the container environment it was created for. Any other token is `NOT_FOUND`, exactly as
    /// one that does not exist, so the answer tells nothing about other users' tokens. An APNs
    /// device token (hexadecimal, from the app's `registerForRemoteNotifications`) is registered
    /// to the caller instead (``registerDeviceToken(_:_:caller:container:environment:)``).
    private func registerToken(_ request: HTTPRequest, caller: String, container: String, environment: Environment) async throws -> HTTPResponse {
        let body = try request.decodeBody(TokensRegister.Request.self)
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

    /// `tokens/register` with an APNs device token: registered to the caller in this container environment.
    ///
    /// A device has one signed-in user at a time, so a token another user registered moves to the
    /// caller (whose pushes then go to it, and the other user's no longer do); the caller keeps at
    /// most ``APNsConfiguration/maximumDeviceTokensPerUser`` tokens, the least recently registered
    /// giving way. Nothing is sent to a device token until the container environment has APNs
    /// credentials (`stratus push apns set`).
    func registerDeviceToken(
        _ token: String, _ apnsEnvironment: APNsEnvironment, caller: String, container: String, environment: Environment
    ) async throws -> HTTPResponse {
        guard apnsEnvironment == .development || apnsEnvironment == .production else {
            throw ServiceError.badRequest(
                "apnsEnvironment must be 'development' or 'production' for an APNs device token; got '\(apnsEnvironment.rawValue.prefix(40))'")
        }
        let row = APNsDeviceToken(
            token: token, container: container, environment: environment, apnsEnvironment: apnsEnvironment, owner: caller,
            registeredAt: configuration.now()
        )
        let limit = max(1, configuration.push.apns.maximumDeviceTokensPerUser)
        _ = try await store.write { tx in try tx.registerAPNsDeviceToken(row, maximumPerUser: limit) }
        return .json(bytes: Data("{}".utf8))
    }
}
