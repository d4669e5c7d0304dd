public import StratusHTTP
public import StratusLogging
import StratusWire

/// The CloudKit Web Services endpoints on a ``RecordStore``: the endpoint groups, composed.
///
/// Each group — records, zones, changes, subscriptions, push, assets, sharing, users, sign-in —
/// is a type that holds what its endpoints need and registers its own routes; the service makes
/// them from one store, account store, configuration and logger, shares what several need (the
/// request admission, the schema cache, the token codec, push delivery), and runs what outlives
/// a request (push fan-out and APNs delivery, asset collection). Documentation/0021-endpoint-groups.md
/// tells which group owns what.
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
    let configuration: ServiceConfiguration
    let admission: RequestAdmission
    /// The groups, in the order they register.
    let groups: [any EndpointGroup]
    /// The route of every database operation, with the handlers the groups registered; the
    /// console's in-process requests go through it too (``respond(operator:actingAs:to:)``).
    let database: DatabaseEndpoint
    /// Signs download URLs in responses; `nil` while assets are off.
    let assetLinks: AssetLinks.Signer?
    let courier: WebCourier
    /// Matches committed changes against subscriptions and queues their notifications (design note 0007).
    let fanout: PushFanout
    /// Sends queued pushes to APNs, once ``startAPNsDelivery(transport:metrics:)`` gave it a transport (design note 0013).
    let apns: APNsDeliverySlot
    let assetCollector: AssetGarbageCollector
    let store: any RecordStore
    let logger: Logger

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
        let parts = ServiceParts(store: store, accounts: accounts, configuration: configuration, logger: logger)
        self.configuration = configuration
        self.store = store
        self.logger = logger
        admission = parts.admission
        courier = parts.courier
        fanout = parts.fanout
        apns = parts.apns
        assetLinks =
            parts.files == nil
            ? nil : AssetLinks.Signer(tokens: parts.tokens, baseURL: parts.baseURL, configuration: configuration.assets, now: configuration.now)
        assetCollector = AssetGarbageCollector(store: store, files: parts.files, configuration: configuration.assets, now: configuration.now, logger: logger)
        groups = parts.groups(accounts: accounts)
        var operations = DatabaseOperations()
        for group in groups {
            group.register(on: &operations)
        }
        database = DatabaseEndpoint(admission: admission, operations: operations, assetLinks: assetLinks)
    }

    /// The URL template of every database operation.
    public static let databaseTemplate = DatabaseEndpoint.template
    /// The URL template of the token operations.
    public static let deviceTemplate = PushEndpoints.deviceTemplate
    /// The URL template of web courier long-polls.
    public static let courierTemplate = PushEndpoints.courierTemplate
    /// The URL template of asset uploads (the "CDN" POST of Apple's CloudKit Web Services Reference: “Upload the bytes to the CDN”).
    public static let assetUploadTemplate = AssetEndpoints.uploadTemplate
    /// The URL template of asset downloads; the last segment is the client's `${f}` file name.
    public static let assetDownloadTemplate = AssetEndpoints.downloadTemplate
    /// The header naming the author's own courier token, which this write's notifications then skip.
    public static let skipPushTokenHeader = RecordEndpoints.skipPushTokenHeader

    /// Adds the routes of every endpoint group to `router`, with the middleware they rely on.
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
        for group in groups {
            group.register(on: &router)
        }
        database.register(on: &router)
    }

    /// Whether a browser page at `origin` may read the response to `request` (CORS).
    ///
    /// - **Open mode**: only loopback origins (`http://localhost:*`, `http://127.0.0.1:*`,
    ///   `http://[::1]:*`, and https on them) and ``AuthenticationConfiguration/openModeOrigins``.
    ///   A server without credentials must not let any web page the developer visits read or
    ///   write their data.
    /// - **With authentication**: the allowed origins of the request's API token (any origin when it
    ///   lists none). A token this process has not yet checked — such as on the preflight before its
    ///   first request — is not refused here: CORS only limits what a browser may read, and the
    ///   request itself is still authenticated. The sign-in pages are never readable by other origins.
    ///
    /// ```swift
    /// router.use(CORSMiddleware { origin, request in service.isOriginAllowed(origin, for: request) })
    /// ```
    ///
    /// - Parameters:
    ///   - origin: The request's `Origin` header.
    ///   - request: The request.
    /// - Returns: `true` if the origin may read the response.
    public func isOriginAllowed(_ origin: String, for request: HTTPRequest) -> Bool {
        admission.isOriginAllowed(origin, for: request)
    }
}
