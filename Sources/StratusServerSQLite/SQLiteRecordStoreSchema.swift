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
        SQLitePushStoreSchema.register(in: &migrator)
        return migrator
    }()
}
