import StratusWire

/// Builds the `{aps, ck}` JSON a courier poll delivers (Documentation/0007-push-and-assets.md, “The web courier”).
enum NotificationPayload {
    /// The database scope number of `ck.*.dbs`: 1 public, 2 private, 3 shared.
    static func scopeNumber(_ scope: DatabaseScope) -> Int {
        switch scope {
        case .public: 1
        case .private: 2
        default: 3
        }
    }

    /// A query notification (`ck.qry`) for one record change.
    static func query(
        _ subscription: StoredSubscription, change: RecordChange, zone: ZoneRow, recipient: String, notificationID: String
    ) -> CourierNotification {
        let record = change.after ?? change.before
        var ck = CourierNotification.CK(cid: zone.database.container, nid: notificationID, ckuserid: recipient)
        ck.qry = CourierNotification.QueryNotification(
            sid: subscription.subscription.subscriptionID, rid: change.recordName, zid: zone.zoneName,
            zoid: zoneOwner(zone.database, recipient: recipient), fo: change.reason.rawValue,
            dbs: scopeNumber(zone.database.scope),
            af: additionalFields(subscription.subscription.notificationInfo?.additionalFields, record)
        )
        return CourierNotification(aps: aps(subscription.subscription.notificationInfo, record: record), ck: ck)
    }

    /// A zone notification (`ck.fet`): something changed in the zone.
    static func zone(
        _ subscription: StoredSubscription, zone: ZoneRow, recipient: String, notificationID: String, record: StoredRecord?
    )
        -> CourierNotification
    {
        var ck = CourierNotification.CK(cid: zone.database.container, nid: notificationID, ckuserid: recipient)
        ck.fet = CourierNotification.ZoneNotification(
            zid: zone.zoneName, zoid: zoneOwner(zone.database, recipient: recipient), dbs: scopeNumber(zone.database.scope),
            sid: subscription.subscription.subscriptionID
        )
        return CourierNotification(aps: aps(subscription.subscription.notificationInfo, record: record), ck: ck)
    }

    /// The resync marker owed after notifications were dropped past the backlog: a silent database
    /// notification without a subscription, with `aux.resync` set; the client should fetch every database's changes.
    static func resync(container: String, recipient: String?, notificationID: String, dropped: Int) -> CourierNotification {
        var ck = CourierNotification.CK(cid: container, nid: notificationID, ckuserid: recipient)
        ck.met = CourierNotification.DatabaseNotification()
        ck.aux = ["resync": .bool(true), "dropped": .integer(Int64(dropped))]
        return CourierNotification(aps: CourierNotification.APS(contentAvailable: 1), ck: ck)
    }

    /// `zoid`: the zone owner — the database owner, or (in the public database, as observed live) the recipient.
    private static func zoneOwner(_ database: DatabaseKey, recipient: String) -> String {
        database.scope == .public ? recipient : database.owner
    }

    /// The `aps` dictionary from the subscription's notification info; `nil` without one.
    static func aps(_ info: NotificationInfo?, record: StoredRecord?) -> CourierNotification.APS? {
        guard let info else { return nil }
        var aps = CourierNotification.APS()
        if info.alertLocalizationKey != nil || info.alertActionLocalizationKey != nil || info.alertLaunchImage != nil {
            aps.alert = .dictionary(
                CourierNotification.AlertDictionary(
                    body: info.alertBody, locKey: info.alertLocalizationKey,
                    locArgs: info.alertLocalizationArgs.map { substitute($0, record) },
                    actionLocKey: info.alertActionLocalizationKey, launchImage: info.alertLaunchImage
                )
            )
        } else if let body = info.alertBody {
            aps.alert = .text(body)
        }
        if info.shouldBadge == true { aps.badge = 1 }
        aps.sound = info.soundName
        aps.category = info.category
        if info.shouldSendContentAvailable == true { aps.contentAvailable = 1 }
        return aps
    }

    /// Localization arguments name record fields, as natively: a field's text replaces its name.
    private static func substitute(_ arguments: [String], _ record: StoredRecord?) -> [String] {
        arguments.map { name in
            switch record?.fields[name] {
            case .string(let text)?: text
            case .int64(let number)?: String(number)
            case .double(let number)?: String(number)
            default: name
            }
        }
    }

    /// `af`: the requested fields' values, as plain JSON values.
    private static func additionalFields(_ names: [String]?, _ record: StoredRecord?) -> [String: JSONValue]? {
        guard let names, !names.isEmpty, let record else { return nil }
        var fields: [String: JSONValue] = [:]
        for name in names {
            guard let value = record.fields[name], let json = try? WireCoding.encodeJSON(value), let plain = json["value"] else { continue }
            fields[name] = plain
        }
        return fields
    }

    /// The payload's bytes as stored in a queue.
    static func bytes(_ notification: CourierNotification) throws -> [UInt8] {
        Array(try WireCoding.encode(notification))
    }
}
