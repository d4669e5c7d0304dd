public import StratusHTTP
public import StratusLogging
import StratusWire
import Synchronization

/// The CloudKit Web Services endpoints on a ``RecordStore``.
///
/// Registers `/database/1/{container}/{environment}/{database}/{operation...}`
/// on a router and answers every records, zones and change-feed operation of
/// CloudKit Web Services, the same for every back end.
///
/// ```swift
/// import StratusHTTP
/// import StratusServer
///
/// let service = CloudKitService(store: store, configuration: .init(tokenSecret: secret), logger: logger)
/// var router = Router(logger: logger)
/// service.register(on: &router)
/// ```
public final class CloudKitService: Sendable {
    let store: any RecordStore
    let configuration: ServiceConfiguration
    let logger: Logger
    let tokens: TokenCodec
    let schemas = SchemaCache()
    /// Checks credentials; `nil` without an account store (open mode only).
    let authenticator: Authenticator?
    let courier: WebCourier
    /// Matches committed changes against subscriptions and queues their notifications (design note 0007).
    let fanout: PushFanout
    /// Sends queued pushes to APNs, once ``startAPNsDelivery(transport:metrics:)`` gave it a transport (design note 0013).
    let apns = APNsDeliverySlot()
    let assetFiles: (any AssetBlobStore)?
    /// Request budgets per container: shared by every node when the store keeps rate buckets.
    let rateLimiter: any RequestRateLimiter
    /// Buckets of clients within containers (``QuotaLimits/clientRequestsPerSecond``), a table of
    /// their own, kept by each node (per-client limits are node-local; the container's is shared).
    let clientRateLimiter = RateLimiter()
    /// Buckets of client addresses whose credentials fail (``QuotaConfiguration/unauthenticatedRequestsPerSecond``), per node.
    let addressRateLimiter = RateLimiter()
    /// Upload URLs in use or spent on this node (each works once).
    let uploadTickets = UploadTicketLedger()
    private let knownContainers = Mutex<Set<String>>([])

    /// Creates the service.
    ///
    /// - Parameters:
    ///   - store: Where records live.
    ///   - accounts: Users, sessions, API tokens and keys; required when
    ///     ``AuthenticationConfiguration/requiresAuthentication`` is set.
    ///   - configuration: Limits, token secret and clocks.
    ///   - logger: Where the service logs.
    public init(store: any RecordStore, accounts: (any AccountStore)? = nil, configuration: ServiceConfiguration, logger: Logger) {
        precondition(
            accounts != nil || !configuration.authentication.requiresAuthentication,
            "CloudKitService: authentication is required but no AccountStore was given"
        )
        self.store = store
        self.configuration = configuration
        self.logger = logger
        self.tokens = TokenCodec(secret: configuration.tokenSecret)
        self.authenticator = accounts.map { Authenticator(accounts: $0, configuration: configuration, logger: logger) }
        let courier = WebCourier(store: store, configuration: configuration.push)
        self.courier = courier
        let apns = self.apns
        self.fanout = PushFanout(
            store: store, configuration: configuration.push, now: configuration.now, logger: logger,
            wake: { tokens in courier.signal(tokens) }, apns: apns
        )
        self.assetFiles = Self.openAssetFiles(configuration.assets, logger: logger)
        switch store.rateBucketSharing {
        case .perNode: self.rateLimiter = RateLimiter()
        case .shared(let buckets): self.rateLimiter = LeasedRateLimiter(shared: buckets, logger: logger)
        }
    }

    /// The URL template of every database operation.
    public static let databaseTemplate = "/database/1/{container}/{environment}/{database}/{operation...}"

    /// Adds the CloudKit routes to `router`, with the middleware they rely on.
    ///
    /// - ``ServiceConfiguration/trustedProxies``: a ``TrustedProxyMiddleware``, ahead of all other
    ///   middleware (``Router/useFirst(_:)``), so every request's ``HTTPRequest/remoteAddress`` is
    ///   its client even behind a reverse proxy, for every middleware and handler that reads it.
    /// - In open mode, a ``LoopbackHostMiddleware``: a request addressed to any name but a loopback
    ///   one (a DNS-rebinding page, another machine) is refused with 403.
    ///
    /// Register request-logging and metrics middleware before calling this, so they see refused
    /// requests too; CORS is the caller's, with ``isOriginAllowed(_:for:)``.
    public func register(on router: inout Router) {
        if !configuration.trustedProxies.isEmpty {
            router.useFirst(TrustedProxyMiddleware(configuration.trustedProxies))
        }
        if !configuration.authentication.requiresAuthentication {
            router.use(LoopbackHostMiddleware())
        }
        for method in [HTTPMethod.get, .post] {
            router.route(method, Self.databaseTemplate, check: { [self] head in try screenCredentials(head) }) { [self] request in
                try await respond(request)
            }
        }
        registerSignIn(on: &router)
        registerPushAndAssetRoutes(on: &router)
    }

    /// Answers one database request.
    func handle(_ request: HTTPRequest) async throws -> HTTPResponse {
        var context = try await resolve(request)
        context.assetLinks = assetLinks(for: request)
        if context.database.scope == .shared, Self.sharedDatabaseOperations.contains(context.operation) {
            return try await handleShared(context)
        }
        switch context.operation {
        case .recordsModify: return try await modifyRecords(context)
        case .recordsLookup: return try await lookupRecords(context)
        case .recordsQuery: return try await queryRecords(context)
        case .recordsChanges: return try await recordChanges(context)
        case .zonesList: return try await listZones(context)
        case .zonesLookup: return try await lookupZones(context)
        case .zonesModify: return try await modifyZones(context)
        case .zonesChanges: return try await zonesChanges(context)
        case .changesDatabase: return try await databaseChanges(context)
        case .changesZone: return try await zoneChanges(context)
        case .usersCaller, .usersCurrent, .usersDiscover, .usersLookupEmail, .usersLookupID, .usersLookupContacts: return try await users(context)
        case .subscriptionsList: return try await listSubscriptions(context)
        case .subscriptionsLookup: return try await lookupSubscriptions(context)
        case .subscriptionsModify: return try await modifySubscriptions(context)
        case .assetsUpload: return try await requestAssetUploads(context)
        case .assetsRereference: return try await rereferenceAssets(context)
        case .recordsResolve: return try await resolveShares(context, accept: false)
        case .recordsAccept: return try await resolveShares(context, accept: true)
        default: throw HTTPError.endpointNotFound
        }
    }

    /// Checks the URL's container, environment, database and operation, and who calls.
    private func resolve(_ request: HTTPRequest) async throws -> RequestContext {
        let operationName = try request.parameter("operation")
        guard let operation = EndpointOperation(rawValue: operationName), operation.module == .database else {
            throw HTTPError.endpointNotFound
        }
        guard let method = EndpointOperation.HTTPMethod(rawValue: request.method.rawValue),
            operation.acceptedMethods.contains(method)
        else {
            throw HTTPError.methodNotAllowed(request.method, allowed: operation.acceptedMethods.map { HTTPMethod(rawValue: $0.rawValue) })
        }
        let environmentName = try request.parameter("environment")
        guard let environment = Environment(rawValue: environmentName) else {
            throw ServiceError.badRequest("unknown environment '\(environmentName)'; use 'development' or 'production'")
        }
        let databaseName = try request.parameter("database")
        guard let scope = DatabaseScope(rawValue: databaseName) else {
            throw ServiceError.badRequest("unknown database '\(databaseName)'; use 'public', 'private' or 'shared'")
        }
        let container = try request.parameter("container")
        let principal = try await admit(request, operation: operation, scope: scope, container: container, environment: environment)
        try await throttle(container: container)
        try throttle(client: principal, of: request, container: container)
        let caller = principal.userRecordName ?? Principal.anonymousRecordName
        let owner = scope == .public ? DatabaseKey.publicOwner : caller
        try checkScope(operation, scope)
        return RequestContext(
            request: request, operation: operation,
            database: DatabaseKey(container: container, environment: environment, scope: scope, owner: owner),
            caller: caller, principal: principal, deviceID: request.headers["X-Stratus-Device-ID"] ?? "web"
        )
    }

    func checkContainer(_ container: String) async throws {
        if knownContainers.withLock({ $0.contains(container) }) { return }
        guard try await store.read({ try $0.containerExists(container) }) else {
            throw ServiceError(.notFound, "container '\(container)' does not exist; create it with `stratus container create \(container)`")
        }
        knownContainers.withLock { _ = $0.insert(container) }
    }

    /// Apple's CloudKit Web Services Reference: “Database scope rules”: what each database scope allows.
    private func checkScope(_ operation: EndpointOperation, _ scope: DatabaseScope) throws(ServiceError) {
        switch (operation, scope) {
        case (.recordsChanges, .public), (.changesZone, .public), (.changesDatabase, .public), (.zonesChanges, .public):
            throw .badRequest("change feeds are not available in the public database")
        case (.zonesModify, .public):
            throw .badRequest("the public database has only the default zone; zones cannot be created or deleted there")
        case (_, .shared) where !Self.sharedDatabaseOperations.contains(operation) && operation.requiredDatabase == nil:
            throw .badRequest("\(operation.rawValue) is not available in the shared database")
        default:
            return
        }
    }

    /// The schema of the request's container environment, for decoding untagged values.
    func schema(for context: RequestContext) async throws -> Schema {
        try await schemas.schema(container: context.container, environment: context.environment) { [store] in
            try await store.read { try $0.schema(container: context.container, environment: context.environment) }
        }
    }

    /// A bounded `resultsLimit`: default and maximum 200.
    func resultsLimit(_ requested: Int?) throws(ServiceError) -> Int {
        let maximum = configuration.limits.maximumResultsPerResponse
        guard let requested else { return maximum }
        guard requested >= 1 else { throw .badRequest("resultsLimit must be at least 1; got \(requested)") }
        return min(requested, maximum)
    }
}
