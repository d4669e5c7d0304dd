public import StratusMetrics
import StratusHTTP
import StratusWire
import Synchronization
import Foundation

extension CloudKitService {
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
            throw ServiceError.badRequest("apnsEnvironment must be 'development' or 'production' for an APNs device token; got '\(apnsEnvironment.rawValue.prefix(40))'")
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

/// What an APNs device token looks like on the wire: the bytes `registerForRemoteNotifications` gave
/// the app, in hexadecimal (32 bytes today; Apple allows for longer ones, up to 100).
///
/// Web courier tokens are 43 base64url characters, so the two never look alike.
public enum APNsDeviceTokenFormat {
    /// The token in lowercase hexadecimal, or `nil` when `text` is not 32 to 100 bytes of hex.
    ///
    /// - Parameter text: The `apnsToken` of a `tokens/register` request.
    /// - Returns: The normalized token.
    public static func normalized(_ text: String) -> String? {
        let count = text.utf8.count
        guard count >= 64, count <= 200, count % 2 == 0, text.utf8.allSatisfy({ $0 < 0x80 && ($0 as UInt8).isHexDigit }) else { return nil }
        return text.lowercased()
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}

/// The APNs delivery of a service: empty until started, then the one delivery; fan-out kicks it.
final class APNsDeliverySlot: Sendable {
    private struct State {
        var delivery: APNsDelivery?
        var closed = false
    }

    private let state = Mutex(State())

    /// Installs `delivery`; `false` if one is installed or the slot is closed.
    func install(_ delivery: APNsDelivery) -> Bool {
        let installed = state.withLock { state -> Bool in
            guard state.delivery == nil, !state.closed else { return false }
            state.delivery = delivery
            return true
        }
        if installed { delivery.kick() }
        return installed
    }

    /// Wakes the delivery, if any.
    func kick() {
        state.withLock { $0.delivery }?.kick()
    }

    /// Room for pushes a fan-out transaction leases to this node's sender; `nil` without a delivery or room.
    func reserve() -> APNsLease? {
        state.withLock { $0.delivery }?.reserve()
    }

    /// Gives back a reservation the transaction did not use (it rolled back).
    func release(_ lease: APNsLease) {
        state.withLock { $0.delivery }?.release(lease.limit)
    }

    /// Sends the pushes a fan-out transaction leased, and gives back the rest of the reservation.
    func send(_ pushes: [APNsPush], credentials: [String: APNsCredentials], reserved lease: APNsLease) {
        state.withLock { $0.delivery }?.accept(pushes, credentials: credentials, reserved: lease.limit)
    }

    /// The delivery's counters.
    var statistics: APNsDeliveryStatistics {
        state.withLock { $0.delivery }?.statistics ?? APNsDeliveryStatistics()
    }

    /// Stops new runs; what is queued stays in the store.
    func close() {
        let delivery = state.withLock { state in
            state.closed = true
            return state.delivery
        }
        delivery?.close()
    }

    /// Closes, waits for the batches in flight, then shuts the transport down.
    func shutdown() async {
        close()
        guard let delivery = state.withLock({ $0.delivery }) else { return }
        await delivery.idle()
        await delivery.transport.shutdown()
    }
}
