import Dispatch
import Foundation

/// The serial executor a context is confined to: its own dispatch queue, or the main queue.
///
/// Each queue carries a marker under one shared `DispatchSpecificKey`, so ``isCurrent``
/// tells which context's queue the caller is running on, even inside nested `sync` calls
/// (a block run by `sync` on another queue sees that queue's marker, not the caller's).
final class ContextQueue: Sendable {
    /// An identity stored as the queue-specific value of each context queue.
    final class Marker: Sendable {}

    private static let key = DispatchSpecificKey<Marker>()
    private static let mainMarker: Marker = {
        let marker = Marker()
        DispatchQueue.main.setSpecific(key: key, value: marker)
        return marker
    }()

    let dispatchQueue: DispatchQueue
    let isMain: Bool
    private let marker: Marker

    /// A private serial queue.
    init(label: String) {
        dispatchQueue = DispatchQueue(label: label)
        isMain = false
        marker = Marker()
        dispatchQueue.setSpecific(key: Self.key, value: marker)
    }

    /// The main queue.
    init() {
        dispatchQueue = DispatchQueue.main
        isMain = true
        marker = Self.mainMarker
    }

    /// Whether the caller runs on this queue (for the main queue: on the main thread, outside any other context's queue).
    var isCurrent: Bool {
        let current = DispatchQueue.getSpecific(key: Self.key)
        if current === marker { return true }
        return isMain && current == nil && Thread.isMainThread
    }

    /// Runs `body` on the queue and waits; runs it in place if the caller is already on the queue.
    func sync<Result>(_ body: () throws -> Result) rethrows -> Result {
        if isCurrent { return try body() }
        return try dispatchQueue.sync(execute: body)
    }

    /// Runs `body` on the queue later, after the blocks already queued.
    func async(_ body: @escaping @Sendable () -> Void) {
        dispatchQueue.async(execute: body)
    }
}
