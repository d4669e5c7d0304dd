#include <sqlite3.h>

/// Returns `SQLITE_TRANSIENT`, which Swift cannot import because it is a cast macro.
///
/// Passing it as the destructor of `sqlite3_bind_text` / `sqlite3_bind_blob`
/// makes SQLite copy the bytes before the bind call returns.
static inline sqlite3_destructor_type stratus_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// Calls the variadic `sqlite3_db_config` with one `int` value and no output pointer.
///
/// Swift cannot call C variadic functions; this covers the boolean options such as
/// `SQLITE_DBCONFIG_DQS_DML` and `SQLITE_DBCONFIG_DQS_DDL`.
static inline int stratus_sqlite3_db_config_int(sqlite3 *db, int op, int value) {
    return sqlite3_db_config(db, op, value, (int *)0);
}
