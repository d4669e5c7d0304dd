import Foundation
import StratusClient
import StratusWire

/// Decodes the `userInfo` of a remote notification into a ``CloudNotification``.
///
/// APNs carries the same `{aps, ck}` payload the web courier delivers, so this goes through the
/// courier's decoder. (When `StratusClient` decodes `userInfo` itself, this is that one call.)
enum PushPayload {
    /// The notification; `nil` for a push without a CloudKit part (the app's own).
    ///
    /// - Throws: ``SyncError/Code/invalidNotification`` for a CloudKit part that does not decode.
    static func notification(userInfo: [AnyHashable: Any]) throws(SyncError) -> CloudNotification? {
        var payload: [String: Any] = [:]
        for (key, value) in userInfo {
            guard let key = key.base as? String else { continue }
            payload[key] = value
        }
        guard payload["ck"] != nil else { return nil }
        do {
            let data = try JSONSerialization.data(withJSONObject: payload)
            return CloudNotification(payload: try WireCoding.decode(CourierNotification.self, from: data))
        } catch {
            throw SyncError(.invalidNotification, "the push's CloudKit payload does not decode: \(error)", underlying: error)
        }
    }
}
