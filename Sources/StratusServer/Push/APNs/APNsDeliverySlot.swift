import Synchronization

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
