public import Foundation
import Synchronization

extension ObjectContext {
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
        get { postsToNotificationCenterFlag.load(ordering: .relaxed) }
        set { postsToNotificationCenterFlag.store(newValue, ordering: .relaxed) }
    }

    /// Posts `notification` on `NotificationCenter.default` if ``postsToNotificationCenter`` is on.
    func postToNotificationCenter(_ notification: ObjectContextNotification) {
        guard postsToNotificationCenter else { return }
        let name: Notification.Name =
            notification.kind == .didSave ? Self.didSaveNotification : Self.objectsDidChangeNotification
        var userInfo: [AnyHashable: Any] = [
            Self.insertedObjectIDsKey: notification.insertedObjectIDs,
            Self.updatedObjectIDsKey: notification.updatedObjectIDs,
            Self.deletedObjectIDsKey: notification.deletedObjectIDs,
            Self.notificationKey: notification,
        ]
        if let token = notification.historyToken { userInfo[Self.historyTokenKey] = token }
        NotificationCenter.default.post(name: name, object: self, userInfo: userInfo)
    }
}

extension ObjectContextNotification {
    /// Reads the notification a context posted on `NotificationCenter`, or `nil` for another notification.
    ///
    /// ```swift
    /// import Foundation
    /// import StratusStore
    ///
    /// func handle(_ notification: Notification) {
    ///     guard let change = ObjectContextNotification(notification) else { return }  // not a context's
    ///     print(change)
    /// }
    /// ```
    ///
    /// - Parameter notification: A ``ObjectContext/objectsDidChangeNotification`` or ``ObjectContext/didSaveNotification``.
    public init?(_ notification: Notification) {
        guard let value = notification.userInfo?[ObjectContext.notificationKey] as? ObjectContextNotification else {
            return nil
        }
        self = value
    }
}
