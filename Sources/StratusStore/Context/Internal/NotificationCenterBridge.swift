import Foundation
import Synchronization

/// Posts a context's notifications on `NotificationCenter.default` while it is on
/// (``ObjectContext/postsToNotificationCenter``), with the names and `userInfo` keys `ObjectContext` declares.
final class NotificationCenterBridge: Sendable {
    /// Whether the context posts there; it may be set from any thread.
    let isOn = Atomic<Bool>(false)

    /// Posts `notification` with `context` as `object`, if the bridge is on.
    func post(_ notification: ObjectContextNotification, from context: ObjectContext) {
        guard isOn.load(ordering: .relaxed) else { return }
        let name: Notification.Name =
            notification.kind == .didSave ? ObjectContext.didSaveNotification : ObjectContext.objectsDidChangeNotification
        var userInfo: [AnyHashable: Any] = [
            ObjectContext.insertedObjectIDsKey: notification.insertedObjectIDs,
            ObjectContext.updatedObjectIDsKey: notification.updatedObjectIDs,
            ObjectContext.deletedObjectIDsKey: notification.deletedObjectIDs,
            ObjectContext.notificationKey: notification,
        ]
        if let token = notification.historyToken { userInfo[ObjectContext.historyTokenKey] = token }
        NotificationCenter.default.post(name: name, object: context, userInfo: userInfo)
    }
}
