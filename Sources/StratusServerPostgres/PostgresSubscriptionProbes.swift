import StratusPostgres
import StratusServer
import StratusServerSQL
import StratusSQL

/// "Does any subscription watch this record type in this zone?" read ahead, in the pipeline that
/// locks the zone, instead of in a round trip of its own while the zone is locked.
///
/// A records write asks the question per changed record type (`hasSubscription`, `PushOutboxRecorder`;
/// or `subscriptionCandidates` with no cursor and a limit of 1). `ModifyTransaction` announces the types the
/// request names (`prefetchSubscriptionCandidates`); `prefetchRecords` sends the same statement
/// per type with its lock and reads, and the answers are taken once each. Anything else — a type
/// the request did not name (a deletion's), a second ask, a cursor — is read as before. Under
/// `READ COMMITTED` each statement sees what committed before it ran, so asking a little earlier in
/// the same transaction sees the same kind of snapshot: a subscription committed meanwhile is as
/// concurrent with the write as one committed just after it.
///
/// A group of writes (`PostgresGroupReads`) asks once for all of them: those answers are shared,
/// taken by every write of the group and by a second ask. The writes commit together, so a
/// subscription committed after the question is as concurrent with each of them as with the first;
/// and a records write saves no subscription, so none of the group's own can be missed.
struct PostgresSubscriptionProbes {
    struct Key: Hashable {
        var database: DatabaseKey
        var zoneName: String
        var recordType: String
    }

    /// Announced, not sent yet.
    private var pending: [Key] = []
    /// Read, not taken yet.
    private var answers: [Key: [StoredSubscription]] = [:]
    /// Questions asked for a whole group, and their answers: kept for every write of the transaction.
    private var sharedKeys: Set<Key> = []
    private var sharedAnswers: [Key: [StoredSubscription]] = [:]

    /// Notes the types a write will ask about; `shared`: every write of the transaction will (a group's).
    mutating func announce(in database: DatabaseKey, zoneName: String, recordTypes: Set<String>, shared: Bool = false) {
        let keys = recordTypes.sorted().map { Key(database: database, zoneName: zoneName, recordType: $0) }
        if shared { sharedKeys.formUnion(keys) }
        pending += keys.filter { answers[$0] == nil && sharedAnswers[$0] == nil && !pending.contains($0) }
    }

    /// The statements for what was announced, in order; ``answer(_:)`` takes their rows in the same order.
    mutating func statements() -> (keys: [Key], statements: [PostgresStatement]) {
        let keys = pending
        pending = []
        let statements = keys.map { key in
            var statement = PostgresConnection.statement(
                SQLPushStatements.candidates(
                    in: key.database, zoneName: key.zoneName, recordTypes: [key.recordType], after: nil, limit: 1, dialect: .postgres
                )
            )
            statement.prepared = true  // the same text for every type and zone; planning it cost more than running it
            return statement
        }
        return (keys, statements)
    }

    /// Keeps the rows read for `keys`.
    mutating func answer(_ keys: [Key], rows: [[PostgresRow]]) throws {
        for (key, rows) in zip(keys, rows) {
            let subscriptions = try rows.map(PostgresStoreTransaction.subscription(key.database))
            if sharedKeys.contains(key) { sharedAnswers[key] = subscriptions } else { answers[key] = subscriptions }
        }
    }

    /// The answer read ahead for this question, once; `nil` when it must be read now.
    mutating func take(
        in database: DatabaseKey, zoneName: String, recordTypes: Set<String>, after cursor: SubscriptionKey?, limit: Int
    )
        -> [StoredSubscription]?
    {
        guard cursor == nil, limit == 1, recordTypes.count == 1, let type = recordTypes.first else { return nil }
        let key = Key(database: database, zoneName: zoneName, recordType: type)
        return answers.removeValue(forKey: key) ?? sharedAnswers[key]
    }
}
