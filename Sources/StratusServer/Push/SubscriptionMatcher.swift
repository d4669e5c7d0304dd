import StratusWire

/// Decides whether a subscription fires for a record change (Apple's CloudKit Web Services Reference: “Subscriptions”).
///
/// A query subscription fires on a creation when the new record matches, on
/// an update when the record matches before or after it (so a record leaving
/// the result set is reported too), and on a deletion when the record as it
/// was matches — each only when its `firesOn` lists the event. A zone
/// subscription fires for every change in its zone. Which zones and types a
/// subscription watches is ``SubscriptionWatch``, the key subscriptions are
/// indexed by, so the index and the matcher cannot disagree.
enum SubscriptionMatcher {
    /// Whether `subscription` fires for `change` in `zone`.
    static func fires(_ subscription: Subscription, for change: RecordChange, inZone zoneName: String) -> Bool {
        guard let recordType = change.after?.recordType ?? change.before?.recordType,
            SubscriptionWatch(subscription).covers(recordType: recordType, zoneName: zoneName)
        else { return false }
        switch subscription.subscriptionType {
        case .zone:
            return true
        case .query:
            guard let query = subscription.query else { return false }
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
}

/// Who may receive pushes about a database's records: only users who may read them.
enum PushAudience {
    /// Whether `user` may read records of `database`: anyone in the public database, only the owner in a private one.
    ///
    /// The shared database (sharing) is not served yet, so nobody receives pushes about it.
    /// In the public database the record type's security roles decide per record too: see
    /// ``mayRead(_:_:in:schema:)``.
    static func mayRead(_ user: String, _ database: DatabaseKey) -> Bool {
        switch database.scope {
        case .public: true
        case .private: user == database.owner
        default: false
        }
    }

    /// Whether `user` may read `record` of `database`: the database's audience, and in the public
    /// database the read permission of the record type's security roles (a `creator`-only type
    /// is its creator's alone), exactly as `records/lookup` and `records/query` decide.
    ///
    /// A notification tells that the record exists and may carry its fields
    /// (`additionalFields`, `alertLocalizationArgs`), so a subscriber who may not read the
    /// record gets none at all.
    static func mayRead(_ user: String, _ record: StoredRecord, in database: DatabaseKey, schema: Schema) -> Bool {
        guard mayRead(user, database) else { return false }
        guard database.scope == .public, let roles = schema.recordTypes[record.recordType]?.roles else { return true }
        return roles.mayRead(record, caller: user == Principal.anonymousRecordName ? nil : user)
    }
}
