public import StratusMetrics

/// What the service runs besides answering requests: push fan-out and delivery, asset collection,
/// and shutdown.
extension CloudKitService {
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

    /// Wakes the web-courier polls parked on this node for `tokens`.
    ///
    /// For back ends shared by several nodes: another node committed notifications for these
    /// tokens (they are already in the store's queues), and this node's parked polls should
    /// fetch them now rather than at their timeout. Unknown tokens are ignored.
    ///
    /// - Parameter tokens: Web courier tokens.
    public func signalPush(tokens: Set<String>) {
        courier.signal(tokens)
    }

    /// Starts sending the pushes fan-out queues for APNs device tokens, through `transport`.
    ///
    /// Until this is called pushes for devices wait in the store's queue (a server that never
    /// calls it queues none: fan-out queues APNs pushes only for container environments with
    /// credentials). The service owns `transport` from now on and shuts it down in ``shutdown()``.
    ///
    /// ```swift
    /// import StratusServer
    /// import StratusServerAPNs
    ///
    /// let transport = try CurlAPNsTransport(configuration: .init(trustedCAFile: caFile))
    /// service.startAPNsDelivery(transport: transport, metrics: metrics)
    /// ```
    ///
    /// - Parameters:
    ///   - transport: An HTTP/2 client of the provider API.
    ///   - metrics: Where `stratus_apns_pushes_total` and `stratus_apns_tokens_removed_total` are counted.
    public func startAPNsDelivery(transport: any APNsTransport, metrics: MetricsRegistry? = nil) {
        let delivery = APNsDelivery(store: store, configuration: configuration.push.apns, transport: transport, logger: logger, metrics: metrics)
        guard apns.install(delivery) else {
            preconditionFailure("CloudKitService.startAPNsDelivery called twice, or after shutdown")
        }
        delivery.startSweeping()
    }

    /// What APNs delivery did on this node so far (all zero before ``startAPNsDelivery(transport:metrics:)``).
    public var apnsStatistics: APNsDeliveryStatistics { apns.statistics }

    /// Deletes asset contents no record has referenced for the grace period; returns how many.
    ///
    /// `stratus serve` runs it periodically; tests call it with a manual clock.
    @discardableResult
    public func collectAssetGarbage() async throws -> Int {
        try await assetCollector.collect()
    }

    /// Collects asset garbage every `interval` until the task is cancelled.
    public func runAssetCollection(every interval: Duration) async {
        await assetCollector.run(every: interval)
    }
}
