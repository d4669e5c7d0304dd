public import Foundation

/// A change in a context, as posted to ``ObjectContext/notifications``.
///
/// ```swift
/// for await notification in context.notifications {
///     if notification.kind == .didSave {
///         print("saved", notification.insertedObjectIDs.count, "new objects")
///     }
/// }
/// ```
public struct ObjectContextNotification: Sendable, Hashable {
    /// What happened.
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The kind's name.
        public var rawValue: String

        /// Makes a kind from its name.
        ///
        /// - Parameter rawValue: The name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The kind's name.
        public var description: String { rawValue }

        /// Objects were inserted, changed or deleted in the context (posted when a `perform` block ends,
        /// or by ``ObjectContext/processPendingChanges()``).
        public static let objectsDidChange = Kind(rawValue: "objectsDidChange")
        /// The context saved: its changes went to its parent, or to the store for the root.
        public static let didSave = Kind(rawValue: "didSave")
    }

    /// What happened.
    public var kind: Kind
    /// The name of the context that posted the notification.
    public var contextName: String
    /// The objects inserted (for ``Kind/didSave``: with their permanent IDs).
    public var insertedObjectIDs: Set<ObjectID>
    /// The objects changed.
    public var updatedObjectIDs: Set<ObjectID>
    /// The objects deleted.
    public var deletedObjectIDs: Set<ObjectID>
    /// For a ``Kind/didSave`` of the root context: the token of the last history transaction it wrote.
    public var historyToken: HistoryToken?

    /// Makes a notification.
    ///
    /// - Parameters:
    ///   - kind: What happened.
    ///   - contextName: The context's name.
    ///   - insertedObjectIDs: The inserted objects.
    ///   - updatedObjectIDs: The changed objects.
    ///   - deletedObjectIDs: The deleted objects.
    ///   - historyToken: The history token of a root save.
    public init(
        kind: Kind, contextName: String, insertedObjectIDs: Set<ObjectID> = [], updatedObjectIDs: Set<ObjectID> = [],
        deletedObjectIDs: Set<ObjectID> = [], historyToken: HistoryToken? = nil
    ) {
        self.historyToken = historyToken
        self.kind = kind
        self.contextName = contextName
        self.insertedObjectIDs = insertedObjectIDs
        self.updatedObjectIDs = updatedObjectIDs
        self.deletedObjectIDs = deletedObjectIDs
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
