import CSQLite

extension SQLiteError {
    /// An error for result code `code`, with the message SQLite holds for `handle`.
    ///
    /// Call it right after the failing call: `sqlite3_errmsg` describes the most recent
    /// API call on the connection.
    init(code: Int32, handle: OpaquePointer?, sql: String?, operation: String) {
        let message: String
        if let handle, let text = sqlite3_errmsg(handle) {
            message = String(cString: text)
        } else if let text = sqlite3_errstr(code) {
            message = String(cString: text)
        } else {
            message = "unknown error"
        }
        self.init(code: Code(rawValue: code), message: message, sql: sql, operation: operation)
    }
}

/// `SQLITE_TRANSIENT`: SQLite copies bound bytes before the bind call returns.
let sqliteTransient = stratus_sqlite_transient()
