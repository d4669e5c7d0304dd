import StratusLogging

/// The pieces several endpoint groups share, made once per service, and the groups made from them:
/// the composition of ``CloudKitService``, written out in one place.
struct ServiceParts {
    let store: any RecordStore
    let configuration: ServiceConfiguration
    let logger: Logger
    /// Seals sync tokens, continuation markers and asset tickets.
    let tokens: TokenCodec
    /// Schemas by container environment (read by decoding, queries, writes).
    let schemas = SchemaCache()
    /// Checks credentials; `nil` without an account store (open mode only).
    let authenticator: Authenticator?
    let baseURL: PublicBaseURL
    let throttle: RequestThrottle
    let admission: RequestAdmission
    let courier: WebCourier
    let apns = APNsDeliverySlot()
    let fanout: PushFanout
    /// Where asset contents live; `nil` while assets are off.
    let files: (any AssetBlobStore)?

    init(store: any RecordStore, accounts: (any AccountStore)?, configuration: ServiceConfiguration, logger: Logger) {
        self.store = store
        self.configuration = configuration
        self.logger = logger
        tokens = TokenCodec(secret: configuration.tokenSecret)
        let authenticator = accounts.map { Authenticator(accounts: $0, configuration: configuration, logger: logger) }
        self.authenticator = authenticator
        baseURL = PublicBaseURL(configuration)
        throttle = RequestThrottle(configuration: configuration, sharing: store.rateBucketSharing, logger: logger)
        admission = RequestAdmission(store: store, configuration: configuration, authenticator: authenticator, throttle: throttle, baseURL: baseURL)
        let courier = WebCourier(store: store, configuration: configuration.push)
        self.courier = courier
        fanout = PushFanout(
            store: store, configuration: configuration.push, now: configuration.now, logger: logger,
            wake: { tokens in courier.signal(tokens) }, apns: apns
        )
        files = AssetEndpoints.openFiles(configuration.assets, logger: logger)
    }

    /// Every endpoint group, each given what it needs.
    func groups(accounts: (any AccountStore)?) -> [any EndpointGroup] {
        let presenter = ZonePresenter(tokens: tokens)
        let records = RecordEndpoints(
            store: store, schemas: schemas, tokens: tokens, configuration: configuration, logger: logger, assetsEnabled: files != nil,
            invitations: ShareInvitations(accounts: accounts, makeParticipantID: configuration.makeRecordName), fanout: fanout
        )
        let feed = ChangeFeed(store: store, tokens: tokens, presenter: presenter, heldBackWait: configuration.limits.databaseFeedWait)
        let changes = ChangeEndpoints(feed: feed, limits: configuration.limits)
        var groups: [any EndpointGroup] = [
            records,
            ZoneEndpoints(store: store, presenter: presenter, limits: configuration.limits, now: configuration.now),
            changes,
            SubscriptionEndpoints(store: store, schemas: schemas, configuration: configuration),
            PushEndpoints(store: store, admission: admission, courier: courier, configuration: configuration),
            AssetEndpoints(
                store: store, files: files, schemas: schemas, tokens: tokens, configuration: configuration, baseURL: baseURL,
                throttle: throttle, uploadTickets: UploadTicketLedger()
            ),
            SharingEndpoints(
                store: store, schemas: schemas, tokens: tokens, configuration: configuration, accounts: accounts, records: records,
                changes: changes, presenter: presenter
            ),
            UserEndpoints(accounts: accounts, limits: configuration.limits),
        ]
        if let authenticator, configuration.authentication.requiresAuthentication {
            groups.append(SignInEndpoints(authenticator: authenticator, authentication: configuration.authentication, baseURL: baseURL, logger: logger))
        }
        return groups
    }
}
