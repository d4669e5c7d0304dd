import StratusWire

/// Decides whether a subscription fires for a record change (protocol.md §6).
///
/// A query subscription fires on a creation when the new record matches, on
/// an update when the record matches before or after it (so a record leaving
/// the result set is reported too), and on a deletion when the record as it
/// was matches — each only when its `firesOn` lists the event. A zone
/// subscription fires for every change in its zone.
enum SubscriptionMatcher {
    /// Whether `subscription` fires for `change` in `zone`.
    static func fires(_ subscription: Subscription, for change: RecordChange, inZone zoneName: String) -> Bool {
        switch subscription.subscriptionType {
        case .zone:
            return zoneName == (subscription.zoneID?.zoneName ?? ZoneID.defaultZoneName)
        case .query:
            guard let query = subscription.query, watches(subscription, zoneName: zoneName) else { return false }
            let events = Set(subscription.firesOn ?? [.create, .update, .delete])
            let filters = query.filterBy ?? []
            func matches(_ record: StoredRecord?) -> Bool {
                guard let record, record.recordType == query.recordType else { return false }
                return RecordFilterEvaluator.matches(filters, record)
            }
            switch change.reason {
            case .created: return events.contains(.create) && matches(change.after)
            case .updated: return events.contains(.update) && (matches(change.after) || matches(change.before))
            case .deleted: return events.contains(.delete) && matches(change.before)
            }
        default:
            return false
        }
    }

    /// A query subscription's zones: its `zoneID`, else every zone when `zoneWide` (the default), else the default zone.
    static func watches(_ subscription: Subscription, zoneName: String) -> Bool {
        if let zoneID = subscription.zoneID { return zoneID.zoneName == zoneName }
        if subscription.zoneWide ?? true { return true }
        return zoneName == ZoneID.defaultZoneName
    }
}

/// Who may receive pushes about a database's records: only users who may read them.
enum PushAudience {
    /// Whether `user` may read records of `database`: anyone in the public database, only the owner in a private one.
    ///
    /// The shared database (sharing) is not served yet, so nobody receives pushes about it.
    static func mayRead(_ user: String, _ database: DatabaseKey) -> Bool {
        switch database.scope {
        case .public: true
        case .private: user == database.owner
        default: false
        }
    }
}
