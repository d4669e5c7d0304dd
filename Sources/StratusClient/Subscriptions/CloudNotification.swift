public import StratusWire

/// A push a subscription fired, decoded from the web courier's payload (`CKNotification`).
///
/// Named `CloudNotification`, not `Notification`, so apps importing Foundation do not have to
/// qualify Foundation's `Notification`.
///
/// ```swift
/// for try await notification in container.notifications() {
///     if notification.kind == .recordZone, let zoneID = notification.zoneID { await refresh(zoneID) }
/// }
/// ```
///
/// Documentation/0007-push-and-assets.md, “The web courier”.
public struct CloudNotification: Sendable, Hashable {
    /// What fired: a query, a zone or a database subscription.
    public enum Kind: String, Sendable, Hashable {
        /// A query subscription (`ck.qry`).
        case query
        /// A zone subscription (`ck.fet`).
        case recordZone
        /// A database subscription (`ck.met`), or the server's resync marker.
        case database
        /// A payload with none of the known parts.
        case unknown
    }

    /// Why a query subscription fired (`CKQueryNotification.Reason`).
    public enum QueryReason: Int, Sendable, Hashable {
        /// A matching record was created.
        case recordCreated = 1
        /// A matching record was updated (or left the result set).
        case recordUpdated = 2
        /// A matching record was deleted.
        case recordDeleted = 3
    }

    /// The kind of subscription that fired.
    public var kind: Kind
    /// The notification ID; shared by every subscription one change fired, so do not de-duplicate on it.
    public var notificationID: String?
    /// The container identifier.
    public var containerIdentifier: String?
    /// The recipient's user record name.
    public var userRecordName: String?
    /// The subscription that fired; `nil` for the resync marker.
    public var subscriptionID: String?
    /// The database the change happened in.
    public var databaseScope: DatabaseScope?
    /// The zone of the change (query and zone notifications).
    public var zoneID: ZoneID?
    /// The changed record (query notifications).
    public var recordID: RecordID?
    /// Why a query subscription fired.
    public var queryNotificationReason: QueryReason?
    /// Extra record fields the subscription asked for (`additionalFields`).
    public var recordFields: [String: JSONValue]
    /// The alert text, when the subscription has notification info with an alert.
    public var alertBody: String?
    /// The badge number.
    public var badge: Int?
    /// The sound name.
    public var soundName: String?
    /// The notification category.
    public var category: String?
    /// Whether fields were dropped to fit the push size limit.
    public var isPruned: Bool
    /// The server dropped notifications for this device (backlog overflow): fetch every database's changes.
    public var isResync: Bool
    /// The payload as delivered.
    public var payload: CourierNotification

    /// Decodes a courier payload.
    ///
    /// - Parameter payload: The `{aps, ck}` payload.
    public init(payload: CourierNotification) {
        self.payload = payload
        let ck = payload.ck
        notificationID = ck.nid
        containerIdentifier = ck.cid
        userRecordName = ck.ckuserid
        isPruned = ck.p != nil
        if case .bool(true)? = ck.aux?["resync"] { isResync = true } else { isResync = false }
        recordFields = [:]
        if let query = ck.qry {
            kind = .query
            subscriptionID = query.sid
            databaseScope = Self.scope(query.dbs)
            let zone = Self.zone(query.zid, owner: query.zoid)
            zoneID = zone
            recordID = query.rid.map { RecordID(recordName: $0, zoneID: zone ?? .defaultZone) }
            queryNotificationReason = query.fo.flatMap(QueryReason.init(rawValue:))
            recordFields = query.af ?? [:]
        } else if let zone = ck.fet {
            kind = .recordZone
            subscriptionID = zone.sid
            databaseScope = Self.scope(zone.dbs)
            zoneID = Self.zone(zone.zid, owner: zone.zoid)
        } else if let database = ck.met {
            kind = .database
            subscriptionID = database.sid
            databaseScope = Self.scope(database.dbs)
        } else {
            kind = .unknown
        }
        if let aps = payload.aps {
            switch aps.alert {
            case .text(let text): alertBody = text
            case .dictionary(let dictionary): alertBody = dictionary.body
            case nil: alertBody = nil
            }
            badge = aps.badge
            soundName = aps.sound
            category = aps.category
        }
    }

    /// `dbs`: `1` public, `2` private, `3` shared.
    static func scope(_ code: Int?) -> DatabaseScope? {
        switch code {
        case 1: .public
        case 2: .private
        case 3: .shared
        default: nil
        }
    }

    private static func zone(_ name: String?, owner: String?) -> ZoneID? {
        name.map { ZoneID(zoneName: $0, ownerRecordName: owner) }
    }
}
