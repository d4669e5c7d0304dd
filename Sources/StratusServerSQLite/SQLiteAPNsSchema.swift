import StratusSQLite

/// The tables of APNs delivery (design note 0013): credentials per container environment, device
/// tokens per user, and the durable delivery queue. A migration of its own, registered last.
enum SQLiteAPNsSchema {
    static func register(in migrator: inout SQLiteMigrator) {
        migrator.registerMigration("apns-v1-credentials-device-tokens-queue") { db in
            try db.execute(sql: """
                -- Token-based APNs credentials; `private_key` is the .p8 key (PKCS #8 PEM), never shown back.
                CREATE TABLE apns_credentials (
                    container TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    key_id TEXT NOT NULL,
                    team_id TEXT NOT NULL,
                    topic TEXT NOT NULL,
                    private_key TEXT NOT NULL,
                    updated_at INTEGER NOT NULL,
                    PRIMARY KEY (container, environment)
                ) WITHOUT ROWID;

                -- Device tokens from tokens/register, each owned by the user who last registered it.
                CREATE TABLE apns_device_tokens (
                    container TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    apns_environment TEXT NOT NULL,
                    token TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    registered_at INTEGER NOT NULL,
                    PRIMARY KEY (container, environment, apns_environment, token)
                ) WITHOUT ROWID;
                CREATE INDEX apns_device_tokens_by_owner ON apns_device_tokens (container, environment, owner, registered_at);

                -- Pushes fan-out queued for devices, deleted once APNs answered; a claim leases a row
                -- to one sender until `lease_until`, a retry waits until `not_before`.
                CREATE TABLE apns_queue (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    container TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    apns_environment TEXT NOT NULL,
                    token TEXT NOT NULL,
                    payload BLOB NOT NULL,
                    push_type TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    not_before INTEGER NOT NULL DEFAULT 0,
                    lease_until INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX apns_queue_by_token ON apns_queue (token, id);
                """)
        }
    }
}
