public import Foundation
import Dispatch
import StratusLogging
import Synchronization

/// A scratch pad of managed objects, confined to one queue, saved to its parent context or to the store.
///
/// A context is not thread-safe: its objects and state are touched only on its queue,
/// reached through `perform { context in … }` (async) and
/// ``performAndWait(_:)`` (blocking). A ``ConcurrencyType/privateQueue`` context has a
/// serial queue of its own; a ``ConcurrencyType/mainQueue`` context runs on the main
/// queue, for UI code on the main actor.
///
/// ```swift
/// let background = container.newBackgroundContext()
/// let id = try await background.perform { context in
///     let note = context.insert(entity: "Note")
///     note.setValue("Buy milk", forKey: "text")
///     try context.save()               // pushes the note to the view context
///     return note.objectID
/// }
/// try await background.saveChain()     // … and on to the disk
/// ```
///
/// Saving a child context pushes its changes into its parent, where they are unsaved
/// changes in turn; saving the root context (the one attached to the store) writes them
/// to SQLite in one transaction. ``saveChain(wait:)`` saves a context and every ancestor.
///
/// Touching a context's objects, or calling its methods other than `perform`,
/// `performAndWait`, ``notifications`` and ``isOnQueue``, off its queue stops the program
/// with a message naming the context.
// The class is Sendable so that `perform` can be called from any task; its objects are not. Its mutable
// state (registered objects, change sets, pending notifications) is read and written only on `queue`:
// every entry point calls `checkOnQueue` or runs inside `queue.sync`/`queue.async`.
// Safety: mutable state is confined to `queue`; the other stored properties are immutable and Sendable.
public final class ObjectContext: @unchecked Sendable {

    /// The kind of queue a context runs on.
    public enum ConcurrencyType: Sendable, Hashable, CustomStringConvertible {
        /// A serial queue of the context's own, for background work.
        case privateQueue
        /// The main queue, for the UI on the main actor.
        case mainQueue

        /// `"privateQueue"` or `"mainQueue"`.
        public var description: String {
            switch self {
            case .privateQueue: "privateQueue"
            case .mainQueue: "mainQueue"
            }
        }
    }

    /// The kind of queue the context runs on.
    public let concurrencyType: ConcurrencyType
    /// The context's name, used in messages and notifications.
    public let name: String
    /// The context this one saves into, or `nil` for the root context attached to the store.
    public let parent: ObjectContext?

    let coordinator: StoreCoordinator
    let queue: ContextQueue
    let logger: Logger
    private let hub = NotificationHub()
    /// Posts on `NotificationCenter.default` while ``postsToNotificationCenter`` is on.
    let notificationCenter = NotificationCenterBridge()

    /// Settings that may be read and written from any thread.
    private struct Settings {
        var mergePolicy = MergePolicy.error
        var transactionAuthor: String?
        var automaticallyMergesChangesFromParent = false
    }

    private let settings = Mutex(Settings())
    /// The child contexts, held weakly, for automatic merges.
    private let children = Mutex<[WeakContext]>([])

    // MARK: Confined state

    var registered: [ObjectID: ManagedObject] = [:]
    var insertedSet: Set<ManagedObject> = []
    /// The inserted objects in the order they were inserted (possibly with some since deleted): saves keep this order.
    var insertionOrder: [ManagedObject] = []
    var changedSet: Set<ManagedObject> = []
    var deletedSet: Set<ManagedObject> = []
    /// Objects inserted then deleted before a save: unregistered at the next save or rollback.
    var discarded: [ManagedObject] = []
    var pendingInserted: Set<ObjectID> = []
    var pendingUpdated: Set<ObjectID> = []
    var pendingDeleted: Set<ObjectID> = []
    /// Counts objects-did-change notifications; an object inserted since the last one needs no update notice.
    var notificationGeneration = 0
    private var performDepth = 0

    private static let counter = Atomic<Int>(0)

    /// Makes a context whose parent is `parent`: saving it pushes its changes into the parent.
    ///
    /// ```swift
    /// let scratch = ObjectContext(concurrencyType: .privateQueue, parent: container.viewContext)
    /// ```
    ///
    /// - Parameters:
    ///   - concurrencyType: The queue the context runs on.
    ///   - parent: The context it saves into.
    ///   - name: A name for messages; a numbered one by default.
    public convenience init(concurrencyType: ConcurrencyType, parent: ObjectContext, name: String? = nil) {
        self.init(
            concurrencyType: concurrencyType, parent: parent, coordinator: parent.coordinator, logger: parent.logger,
            name: name)
    }

    init(
        concurrencyType: ConcurrencyType, parent: ObjectContext?, coordinator: StoreCoordinator, logger: Logger,
        name: String?
    ) {
        self.concurrencyType = concurrencyType
        self.parent = parent
        self.coordinator = coordinator
        self.logger = logger
        let (number, _) = Self.counter.wrappingAdd(1, ordering: .relaxed)
        let name = name ?? "context #\(number)"
        self.name = name
        switch concurrencyType {
        case .privateQueue: queue = ContextQueue(label: "stratus.store.context.\(name)")
        case .mainQueue: queue = ContextQueue()
        }
        parent?.addChild(self)
    }

    // MARK: Settings

    /// How the context's saves resolve conflicts with changes saved meanwhile; ``MergePolicy/error`` by default.
    ///
    /// Unlike the context's other state, it may be set from any thread.
    public var mergePolicy: MergePolicy {
        get { settings.withLock { $0.mergePolicy } }
        set { settings.withLock { $0.mergePolicy = newValue } }
    }

    /// The author recorded in the persistent history for the changes this context saves, or `nil`.
    ///
    /// The author travels with the changes up the chain, property by property, so a root save
    /// that carries the changes of several contexts records one history transaction per author.
    /// The sync framework sets its own author and skips its own transactions when it reads the history.
    /// It may be set from any thread.
    public var transactionAuthor: String? {
        get { settings.withLock { $0.transactionAuthor } }
        set { settings.withLock { $0.transactionAuthor = newValue } }
    }

    /// Whether the context refreshes its objects when changes are saved into its parent or the parent saves; `false` by default.
    ///
    /// When a sibling's save reaches the parent, or the parent saves, the objects that changed
    /// are turned back into faults here (keeping this context's own unsaved changes on top), so
    /// the next read sees the new values and the next save is not a conflict. The refresh runs
    /// on the context's queue soon after, and is announced with an
    /// ``ObjectContextNotification/Kind/objectsDidChange`` notification. It may be set from any thread.
    public var automaticallyMergesChangesFromParent: Bool {
        get { settings.withLock { $0.automaticallyMergesChangesFromParent } }
        set { settings.withLock { $0.automaticallyMergesChangesFromParent = newValue } }
    }

    private func addChild(_ child: ObjectContext) {
        children.withLock { children in
            children.removeAll { $0.context == nil }
            children.append(WeakContext(context: child))
        }
    }

    /// The live child contexts that merge changes automatically.
    func automergingChildren() -> [ObjectContext] {
        children.withLock { children in children.compactMap(\.context) }
            .filter(\.automaticallyMergesChangesFromParent)
    }

    var model: ResolvedModel { coordinator.resolved }

    // MARK: Queue

    /// Whether the caller runs on the context's queue, where its objects may be used.
    public var isOnQueue: Bool { queue.isCurrent }

    /// Stops the program unless the caller is on the context's queue.
    func checkOnQueue(_ operation: @autoclosure () -> String) {
        precondition(
            queue.isCurrent,
            "\(operation()) off the queue of context \"\(name)\" (\(concurrencyType)): use the context only inside "
                + "context.perform { } or context.performAndWait { }")
    }

    /// Runs `body` on the context's queue while the caller suspends.
    ///
    /// Blocks run one at a time, in the order they were submitted. Changes made in the
    /// block are announced with an ``ObjectContextNotification/Kind/objectsDidChange``
    /// notification when it returns.
    ///
    /// ```swift
    /// let count = try await context.perform { context in
    ///     try context.count(for: FetchRequest(entityName: "Note"))
    /// }
    /// ```
    ///
    /// - Parameter body: Uses the context and its objects; returns a `Sendable` value (an ``ObjectID``, not an object).
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func perform<Result: Sendable>(
        _ body: @escaping @Sendable (ObjectContext) throws -> Result
    ) async throws
        -> Result
    {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Swift.Result { try self.inPerformScope { try body(self) } })
            }
        }
    }

    /// Runs `body` on the context's queue while the caller suspends; the non-throwing form.
    ///
    /// - Parameter body: Uses the context and its objects.
    /// - Returns: What `body` returns.
    public func perform<Result: Sendable>(_ body: @escaping @Sendable (ObjectContext) -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: self.inPerformScope { body(self) })
            }
        }
    }

    /// Runs `body` on the context's queue and blocks until it returns.
    ///
    /// Runs in place when called on the context's queue already. Like Core Data's, it
    /// deadlocks if the context's queue is itself waiting for the caller (for example a
    /// main-queue context called from a thread the main thread is blocked on).
    ///
    /// - Parameter body: Uses the context and its objects.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func performAndWait<Result>(_ body: (ObjectContext) throws -> Result) rethrows -> Result {
        try queue.sync { try inPerformScope { try body(self) } }
    }

    /// Queues `body` without waiting.
    func enqueue(_ body: @escaping @Sendable (ObjectContext) -> Void) {
        queue.async { self.inPerformScope { body(self) } }
    }

    private func inPerformScope<Result>(_ body: () throws -> Result) rethrows -> Result {
        performDepth += 1
        defer {
            performDepth -= 1
            if performDepth == 0 { processPendingChanges() }
        }
        return try body()
    }

    // MARK: Notifications

    /// A new stream of the context's notifications: objects-did-change and did-save.
    ///
    /// Each access makes a new subscription that receives the notifications posted from
    /// then on, about changes made from then on (a context nobody listens to does not track
    /// changes for notifications); it ends when the stream is dropped. Notifications carry only IDs, so they
    /// can be read from any task. The same notifications can go to `NotificationCenter.default`
    /// too: see ``postsToNotificationCenter``.
    public var notifications: AsyncStream<ObjectContextNotification> {
        hub.subscribe()
    }

    /// Posts an ``ObjectContextNotification/Kind/objectsDidChange`` notification for the changes made since the last one.
    ///
    /// Called automatically when the outermost `perform` or `performAndWait` block returns.
    public func processPendingChanges() {
        checkOnQueue("processPendingChanges()")
        guard !pendingInserted.isEmpty || !pendingUpdated.isEmpty || !pendingDeleted.isEmpty else { return }
        let notification = ObjectContextNotification(
            kind: .objectsDidChange, contextName: name, insertedObjectIDs: pendingInserted,
            updatedObjectIDs: pendingUpdated.subtracting(pendingInserted).subtracting(pendingDeleted),
            deletedObjectIDs: pendingDeleted)
        pendingInserted = []
        pendingUpdated = []
        pendingDeleted = []
        notificationGeneration += 1
        post(notification)
    }

    /// Whether anyone listens to the context's notifications (a stream subscriber, or
    /// ``postsToNotificationCenter``): changes are tracked for objects-did-change only then.
    var isObserved: Bool { hub.hasSubscribers || postsToNotificationCenter }

    func post(_ notification: ObjectContextNotification) {
        hub.post(notification)
        notificationCenter.post(notification, from: self)
    }

    // MARK: NotificationCenter

    /// The name of the objects-did-change notifications a context posts on `NotificationCenter.default`.
    ///
    /// Posted only while ``postsToNotificationCenter`` is on; `object` is the context and
    /// `userInfo` holds the IDs under ``insertedObjectIDsKey``, ``updatedObjectIDsKey`` and
    /// ``deletedObjectIDsKey``.
    public static let objectsDidChangeNotification = Notification.Name("StratusStore.ObjectContext.objectsDidChange")

    /// The name of the did-save notifications a context posts on `NotificationCenter.default`.
    ///
    /// Posted only while ``postsToNotificationCenter`` is on; `object` is the context and
    /// `userInfo` holds the (permanent) IDs under ``insertedObjectIDsKey``, ``updatedObjectIDsKey`` and
    /// ``deletedObjectIDsKey``, and for the root context the ``HistoryToken`` under ``historyTokenKey``.
    public static let didSaveNotification = Notification.Name("StratusStore.ObjectContext.didSave")

    /// The `userInfo` key of the inserted objects' IDs, a `Set<ObjectID>`.
    public static let insertedObjectIDsKey = "insertedObjectIDs"
    /// The `userInfo` key of the updated objects' IDs, a `Set<ObjectID>`.
    public static let updatedObjectIDsKey = "updatedObjectIDs"
    /// The `userInfo` key of the deleted objects' IDs, a `Set<ObjectID>`.
    public static let deletedObjectIDsKey = "deletedObjectIDs"
    /// The `userInfo` key of the ``HistoryToken`` of a root context's save (absent otherwise).
    public static let historyTokenKey = "historyToken"
    /// The `userInfo` key of the whole ``ObjectContextNotification``.
    public static let notificationKey = "notification"

    /// Whether the context also posts its notifications on `NotificationCenter.default`; `false` by default.
    ///
    /// While it is on, every notification the context posts to ``notifications`` (objects-did-change
    /// and did-save) is also posted as ``objectsDidChangeNotification`` or ``didSaveNotification``,
    /// with the context as `object`. A context tracks changes for objects-did-change only while
    /// someone listens, and `NotificationCenter` cannot tell it that: turn this on before making
    /// the changes you want to hear about. It may be set from any thread.
    ///
    /// ```swift
    /// context.postsToNotificationCenter = true
    /// let observer = NotificationCenter.default.addObserver(
    ///     forName: ObjectContext.didSaveNotification, object: context, queue: nil
    /// ) { notification in
    ///     let inserted = notification.userInfo?[ObjectContext.insertedObjectIDsKey] as? Set<ObjectID>
    ///     print("saved", inserted?.count ?? 0, "new objects")
    /// }
    /// ```
    ///
    /// Observers registered with a `nil` queue run on the context's queue, synchronously, during the
    /// save or at the end of the `perform` block; they must not wait for the context.
    public var postsToNotificationCenter: Bool {
        get { notificationCenter.isOn.load(ordering: .relaxed) }
        set { notificationCenter.isOn.store(newValue, ordering: .relaxed) }
    }

    // MARK: State

    /// Whether the context has unsaved insertions, changes or deletions.
    public var hasChanges: Bool {
        checkOnQueue("hasChanges")
        return !insertedSet.isEmpty || !changedSet.isEmpty || !deletedSet.isEmpty
    }

    /// The objects inserted since the last save.
    public var insertedObjects: Set<ManagedObject> {
        checkOnQueue("insertedObjects")
        return insertedSet
    }

    /// The saved objects changed since the last save.
    public var updatedObjects: Set<ManagedObject> {
        checkOnQueue("updatedObjects")
        return changedSet
    }

    /// The saved objects deleted since the last save.
    public var deletedObjects: Set<ManagedObject> {
        checkOnQueue("deletedObjects")
        return deletedSet
    }

    /// Every object the context holds.
    public var registeredObjects: Set<ManagedObject> {
        checkOnQueue("registeredObjects")
        return Set(registered.values)
    }

    deinit {
        hub.finish()
    }
}

/// A weak reference to a context.
struct WeakContext: Sendable {
    weak var context: ObjectContext?
}
