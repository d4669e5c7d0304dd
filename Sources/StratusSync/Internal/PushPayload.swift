import Foundation
import StratusClient

/// Decodes the `userInfo` of a remote notification into a ``CloudNotification``.
///
/// APNs carries the same `{aps, ck}` payload the web courier delivers; `StratusClient`'s
/// ``CloudNotification/init(userInfo:)`` decodes it, and a push without a `ck` part is the app's own.
enum PushPayload {
    /// The notification; `nil` for a push without a CloudKit part (the app's own).
    ///
    /// - Throws: ``SyncError/Code/invalidNotification`` for a CloudKit part that does not decode.
    static func notification(userInfo: [AnyHashable: Any]) throws(SyncError) -> CloudNotification? {
        guard userInfo.keys.contains(where: { ($0.base as? String) == "ck" }) else { return nil }
        do {
            return try CloudNotification(userInfo: userInfo)
        } catch {
            throw SyncError(.invalidNotification, "the push's CloudKit payload does not decode: \(error)", underlying: error)
        }
    }
}
