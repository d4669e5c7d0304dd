import StratusWire

/// The body and kind of the push APNs carries for one notification: the `ck` dictionary exactly as
/// the web courier delivers it, under an `aps` that asks APNs for a silent push or an alert.
///
/// - Without an alert, badge or sound in the subscription's notification info: a **silent push**,
///   `{"aps":{"content-available":1},"ck":{…}}`, `apns-push-type: background`, priority 5 — it
///   wakes the app, which then fetches the changes.
/// - With one: an **alert push**, the courier's `aps` (alert, badge, sound, category, and
///   `content-available` when `shouldSendContentAvailable`), `apns-push-type: alert`, priority 10.
///
/// APNs takes at most 4 KB. A larger notification is **pruned** as CloudKit prunes it: the
/// requested record fields (`ck.qry.af`) go first and `ck.p` is set; then the alert text is
/// shortened. A notification that still does not fit is refused (`nil`).
struct APNsPayload: Hashable, Sendable {
    /// APNs' limit on a payload, in bytes.
    static let maximumSize = 4096

    /// The JSON body.
    var body: [UInt8]
    /// `apns-push-type`.
    var pushType: APNsPushType

    /// `apns-priority`: 5 for background pushes (Apple requires it), 10 for alerts.
    var priority: Int { pushType == .alert ? 10 : 5 }

    /// The push for `notification`, pruned to fit; `nil` if it cannot be made to fit.
    static func make(for notification: CourierNotification) -> APNsPayload? {
        var push = notification
        let aps = notification.aps
        let isAlert = aps?.alert != nil || aps?.badge != nil || aps?.sound != nil
        if isAlert {
            push.aps?.contentAvailable = aps?.contentAvailable
        } else {
            push.aps = CourierNotification.APS(contentAvailable: 1)
        }
        let type: APNsPushType = isAlert ? .alert : .background
        if let body = encoded(push) { return APNsPayload(body: body, pushType: type) }
        if push.ck.qry?.af != nil {
            push.ck.qry?.af = nil
            push.ck.p = .integer(1)
            if let body = encoded(push) { return APNsPayload(body: body, pushType: type) }
        }
        guard isAlert else { return nil }
        push.ck.p = .integer(1)
        for limit in [1024, 256, 64] {
            let alert = shortened(push.aps?.alert, to: limit)
            push.aps?.alert = alert
            if let body = encoded(push) { return APNsPayload(body: body, pushType: type) }
        }
        return nil
    }

    /// The JSON of `notification` if it fits.
    private static func encoded(_ notification: CourierNotification) -> [UInt8]? {
        guard let body = try? NotificationPayload.bytes(notification), body.count <= maximumSize else { return nil }
        return body
    }

    /// The alert with its text (and localization arguments) cut to `limit` characters.
    private static func shortened(_ alert: CourierNotification.Alert?, to limit: Int) -> CourierNotification.Alert? {
        switch alert {
        case .text(let text)?: return .text(String(text.prefix(limit)))
        case .dictionary(var dictionary)?:
            dictionary.body = dictionary.body.map { String($0.prefix(limit)) }
            dictionary.locArgs = dictionary.locArgs?.map { String($0.prefix(limit / 4)) }
            return .dictionary(dictionary)
        case nil: return nil
        }
    }
}
