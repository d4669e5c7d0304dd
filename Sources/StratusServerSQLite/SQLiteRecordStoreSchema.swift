import StratusServerSQL
import StratusSQL
import StratusSQLite

/// The tables of the SQLite back end, as ordered migrations.
///
/// Every table is keyed by zone row (which carries container, environment,
/// scope and owner) or by container first, so data stays grouped by owner.
enum SQLiteRecordStoreSchema {
    static let migrator: SQLiteMigrator = {
        var migrator = SQLiteMigrator()
        migrator.registerMigration("v1-records-zones-change-log") { db in
            try db.execute(sql: SQLRecordSchema.tables(.sqlite))
        }
        migrator.registerMigration("v2-query-index") { db in
            try db.execute(
                sql: """
                    -- The query index: one row per indexed scalar field and per list member of a live record.
                    -- `v` has no declared type, so it keeps each value's storage class: INTEGER (INT64,
                    -- TIMESTAMP), REAL (DOUBLE, a LOCATION's latitude), TEXT (STRING, a REFERENCE's record
                    -- name) or BLOB (BYTES). One field has one type, so values of a field compare as they
                    -- should. `v2` holds a LOCATION's longitude. A sortable scalar field the record lacks
                    -- gets a row with `v` NULL, so a sort can join this table without losing records.
                    CREATE TABLE field_index (
                        zone_id INTEGER NOT NULL,
                        record_name TEXT NOT NULL,
                        field_name TEXT NOT NULL,
                        ordinal INTEGER NOT NULL,
                        record_type TEXT NOT NULL,
                        v,
                        v2 REAL,
                        PRIMARY KEY (zone_id, record_name, field_name, ordinal)
                    ) WITHOUT ROWID;
                    CREATE INDEX field_index_values ON field_index (zone_id, record_type, field_name, v, record_name);

                    -- Search tokens of searchable STRING and STRING_LIST fields (see SearchTokenizer).
                    CREATE TABLE field_tokens (
                        zone_id INTEGER NOT NULL,
                        record_name TEXT NOT NULL,
                        field_name TEXT NOT NULL,
                        token TEXT NOT NULL,
                        record_type TEXT NOT NULL,
                        PRIMARY KEY (zone_id, record_name, field_name, token)
                    ) WITHOUT ROWID;
                    CREATE INDEX field_tokens_search ON field_tokens (zone_id, record_type, field_name, token, record_name);

                    -- System fields usable in filters and sorts.
                    CREATE INDEX records_by_created ON records (zone_id, record_type, created_at, record_name) WHERE deleted = 0;
                    CREATE INDEX records_by_modified ON records (zone_id, record_type, modified_at, record_name) WHERE deleted = 0;
                    CREATE INDEX records_by_creator ON records (zone_id, record_type, created_by, record_name) WHERE deleted = 0;
                    CREATE INDEX records_by_modifier ON records (zone_id, record_type, modified_by, record_name) WHERE deleted = 0;
                    """)
            try SQLiteFieldIndex.rebuildAll(db)
        }
        migrator.registerMigration("v3-system-field-indexes-on-demand") { db in
            // Every write paid for four indexes few queries use; they are now created by the
            // first query that filters or sorts on their system field (SQLiteSystemIndexes).
            for index in SQLiteSystemIndexes.all {
                try db.execute(sql: "DROP INDEX IF EXISTS \(index.name)")
            }
        }
        SQLiteAccountSchema.register(in: &migrator)
        SQLitePushStoreSchema.register(in: &migrator)
        SQLiteShareSchema.registerUsage(in: &migrator)
        SQLiteShareSchema.register(in: &migrator)
        SQLiteCredentialGenerationSchema.register(in: &migrator)
        SQLiteShareSchema.registerHierarchyMoves(in: &migrator)
        SQLitePushStoreSchema.registerOutbox(in: &migrator)
        SQLiteAPNsSchema.register(in: &migrator)
        SQLiteConsoleSchema.register(in: &migrator)
        migrator.registerMigration("v4-field-index-builds") { db in
            try db.execute(sql: SQLiteFieldIndexBuild.createTable)
        }
        return migrator
    }()
}
