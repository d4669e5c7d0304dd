/// Where an entity may be used: anywhere (a thread-safe entity, the default), or on one serial
/// queue only, such as the queue of a Core Data–style context.
///
/// The controller reads and writes an entity only here: for a confined entity it hops to the queue
/// (`perform`), and while ``CloudProxy/saveAndWait()`` blocks that queue, the blocked thread runs the
/// controller's work itself, so a blocking call made on the queue cannot deadlock on it. Entities
/// related to one another (a note and its folder) share a confinement.
///
/// `StratusStoreSync` makes one for a `StratusStore` context (`SyncConfinement(context:)`); any
/// other serial executor fits the same shape:
///
/// ```swift
/// import Dispatch
/// import StratusSync
///
/// func confinement(of queue: DispatchQueue, key: DispatchSpecificKey<Int>) -> SyncConfinement {
///     SyncConfinement(
///         identity: queue,
///         isCurrent: { DispatchQueue.getSpecific(key: key) != nil },
///         perform: { body in
///             await withCheckedContinuation { done in queue.async { body(); done.resume() } }
///             return true
///         })
/// }
/// ```
public struct SyncConfinement: Sendable {
    /// Runs a block on the queue and returns once it ran (`false`: the queue is gone, it did not run).
    let perform: (@Sendable (@escaping @Sendable () -> Void) async -> Bool)?
    /// Whether the caller runs on the queue now.
    let isCurrent: @Sendable () -> Bool
    /// The queue's identity, shared by every entity confined to it.
    let identity: ObjectIdentifier?

    /// A thread-safe entity: used wherever the controller runs.
    public static let anywhere = SyncConfinement(perform: nil, isCurrent: { true }, identity: nil)

    private init(perform: (@Sendable (@escaping @Sendable () -> Void) async -> Bool)?, isCurrent: @escaping @Sendable () -> Bool, identity: ObjectIdentifier?) {
        self.perform = perform
        self.isCurrent = isCurrent
        self.identity = identity
    }

    /// A serial queue.
    ///
    /// - Parameters:
    ///   - identity: An object that stands for the queue (the context, the queue itself): entities
    ///     with the same identity share the queue.
    ///   - isCurrent: Whether the caller runs on the queue; may be asked from any thread.
    ///   - perform: Runs a block on the queue and returns once it ran, `true`; `false` when the queue
    ///     is gone (the block did not run, and the controller reports an error).
    public init(
        identity: AnyObject, isCurrent: @escaping @Sendable () -> Bool, perform: @escaping @Sendable (@escaping @Sendable () -> Void) async -> Bool
    ) {
        self.init(perform: perform, isCurrent: isCurrent, identity: ObjectIdentifier(identity))
    }

    /// Whether this is ``anywhere``.
    public var isAnywhere: Bool { perform == nil }
}
