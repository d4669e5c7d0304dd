import StratusSQLite

/// The tables of the SQLite back end, as ordered migrations.
///
/// Every table is keyed by zone row (which carries container, environment,
/// scope and owner) or by container first, so data stays grouped by owner.
enum SQLiteRecordStoreSchema {
    static let migrator: SQLiteMigrator = {
        var migrator = SQLiteMigrator()
        migrator.registerMigration("v1-records-zones-change-log") { db in
            try db.execute(sql: """
                CREATE TABLE containers (
                    identifier TEXT PRIMARY KEY NOT NULL,
                    created_at INTEGER NOT NULL
                ) WITHOUT ROWID;

                CREATE TABLE schemas (
                    container TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    body BLOB NOT NULL,
                    PRIMARY KEY (container, environment)
                ) WITHOUT ROWID;

                -- One row per database (container, environment, scope, owner): its change-log position.
                CREATE TABLE databases (
                    container TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    change_seq INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (container, environment, scope, owner)
                ) WITHOUT ROWID;

                -- Zones; a deleted zone keeps its row so database change feeds can report it.
                CREATE TABLE zones (
                    id INTEGER PRIMARY KEY,
                    container TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    zone_name TEXT NOT NULL,
                    change_seq INTEGER NOT NULL DEFAULT 0,
                    db_seq INTEGER NOT NULL,
                    created_at INTEGER NOT NULL,
                    deleted INTEGER NOT NULL DEFAULT 0
                );
                CREATE UNIQUE INDEX zones_live ON zones (container, environment, scope, owner, zone_name) WHERE deleted = 0;
                CREATE INDEX zones_changes ON zones (container, environment, scope, owner, db_seq);

                -- Records and tombstones; `seq` is the zone change sequence of the last change.
                CREATE TABLE records (
                    zone_id INTEGER NOT NULL,
                    record_name TEXT NOT NULL,
                    record_type TEXT NOT NULL,
                    change_tag TEXT NOT NULL,
                    seq INTEGER NOT NULL,
                    deleted INTEGER NOT NULL DEFAULT 0,
                    fields BLOB,
                    created_at INTEGER NOT NULL,
                    created_by TEXT NOT NULL,
                    created_device TEXT NOT NULL,
                    modified_at INTEGER NOT NULL,
                    modified_by TEXT NOT NULL,
                    modified_device TEXT NOT NULL,
                    PRIMARY KEY (zone_id, record_name)
                ) WITHOUT ROWID;
                CREATE UNIQUE INDEX records_changes ON records (zone_id, seq);
                CREATE INDEX records_by_type ON records (zone_id, record_type, record_name) WHERE deleted = 0;

                -- Outgoing references of live records, looked up by target.
                CREATE TABLE record_refs (
                    zone_id INTEGER NOT NULL,
                    target_name TEXT NOT NULL,
                    source_name TEXT NOT NULL,
                    field_name TEXT NOT NULL,
                    action TEXT NOT NULL,
                    PRIMARY KEY (zone_id, target_name, source_name, field_name)
                ) WITHOUT ROWID;
                CREATE INDEX record_refs_by_source ON record_refs (zone_id, source_name);
                """)
        }
        migrator.registerMigration("v2-query-index") { db in
            try db.execute(sql: """
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
        SQLiteUsageSchema.register(in: &migrator)
        SQLiteShareSchema.register(in: &migrator)
        SQLiteCredentialGenerationSchema.register(in: &migrator)
        SQLiteShareSchema.registerHierarchyMoves(in: &migrator)
        SQLitePushStoreSchema.registerOutbox(in: &migrator)
        SQLiteAPNsSchema.register(in: &migrator)
        return migrator
    }()
}
