public import StratusSQL

/// A back end's store transaction that runs the shared statements (``SQLShareStore``,
/// ``SQLUsageStore``, ``SQLPushStore``, ``SQLAPNsStore``) on its connection.
///
/// A back end conforms its transaction type and names the executor; the protocol extensions
/// then provide the store primitives, written once for SQLite and PostgreSQL.
public protocol SQLStoreTransaction: AnyObject {
    /// Where the shared statements run; on PostgreSQL, one that notes the failures a retry may cure.
    var executor: any SQLExecutor { get }
}

extension SQLStoreTransaction {
    /// A corruption error naming this back end.
    func corruption(_ message: String) -> SQLStoreCorruption {
        SQLStoreCorruption(message: message, dialect: executor.dialect)
    }

    /// `column` is false, written as each back end's partial indexes are: `column = 0` on SQLite
    /// (which matches a partial index only by the same literal term), `NOT column` on PostgreSQL.
    func isFalse(_ column: SQL) -> SQL {
        executor.dialect == .sqlite ? "\(column) = 0" : "NOT \(column)"
    }

    /// A column whose name differs by back end (PostgreSQL reserves `user`), as a quoted identifier.
    func column(sqlite: String, postgres: String) -> SQL {
        executor.dialect == .sqlite ? "\(identifier: sqlite)" : "\(identifier: postgres)"
    }

    /// ` FOR UPDATE` on PostgreSQL (the row stays locked until commit, across nodes); nothing on
    /// SQLite, whose one writer already excludes every other.
    var forUpdate: SQL { executor.dialect == .sqlite ? "" : " FOR UPDATE" }

    /// ` FOR UPDATE SKIP LOCKED` on PostgreSQL (rows another node is claiming are passed over); nothing on SQLite.
    var skippingLocked: SQL { executor.dialect == .sqlite ? "" : " FOR UPDATE SKIP LOCKED" }

    /// The rows after the first `count`: SQLite wants a `LIMIT` before an `OFFSET`, PostgreSQL none.
    func offset(_ count: Int) -> SQL {
        executor.dialect == .sqlite ? "LIMIT -1 OFFSET \(count)" : "OFFSET \(count)"
    }
}
