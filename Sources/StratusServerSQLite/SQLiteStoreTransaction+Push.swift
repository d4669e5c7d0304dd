import StratusServer
import StratusServerSQL

/// Subscriptions, the web courier's tokens and queues, the push outbox and APNs delivery on
/// SQLite: the statements are `SQLPushStore`'s and `SQLAPNsStore`'s, shared with PostgreSQL.
extension SQLiteStoreTransaction: SQLPushStore, SQLAPNsStore {
    /// Nothing to announce: one node serves every poll, and its push courier wakes the polls of
    /// the tokens a write queued for once the write commits.
    func announceQueued(token: String) throws {}
}

/// The reads of a whole-container export: `SQLExportStore`'s, shared with PostgreSQL.
extension SQLiteStoreTransaction: SQLExportStore {}
