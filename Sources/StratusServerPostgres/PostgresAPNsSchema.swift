import StratusPostgres

/// The tables of APNs delivery (design note 0013): credentials per container environment, device
/// tokens per user, and the durable delivery queue every node claims from. Registered last.
enum PostgresAPNsSchema {
    static func register(in migrator: inout PostgresMigrator) {
        migrator.registerMigration("pg-v10-apns-credentials-device-tokens-queue") { db in
            try db.execute("""
                -- Token-based APNs credentials; `private_key` is the .p8 key (PKCS #8 PEM), never shown back.
                CREATE TABLE apns_credentials (
                    container TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    key_id TEXT NOT NULL,
                    team_id TEXT NOT NULL,
                    topic TEXT NOT NULL,
                    private_key TEXT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    PRIMARY KEY (container, environment)
                );

                -- Device tokens from tokens/register, each owned by the user who last registered it.
                CREATE TABLE apns_device_tokens (
                    container TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    apns_environment TEXT NOT NULL,
                    token TEXT NOT NULL,
                    owner_name TEXT NOT NULL,
                    registered_at BIGINT NOT NULL,
                    PRIMARY KEY (container, environment, apns_environment, token)
                );
                CREATE INDEX apns_device_tokens_by_owner ON apns_device_tokens (container, environment, owner_name, registered_at);

                -- Pushes fan-out queued for devices, deleted once APNs answered; a claim leases a row
                -- to one node until `lease_until` (FOR UPDATE SKIP LOCKED), a retry waits until `not_before`.
                CREATE TABLE apns_queue (
                    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    container TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    apns_environment TEXT NOT NULL,
                    token TEXT NOT NULL,
                    payload BYTEA NOT NULL,
                    push_type TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    not_before BIGINT NOT NULL DEFAULT 0,
                    lease_until BIGINT NOT NULL DEFAULT 0
                );
                CREATE INDEX apns_queue_by_token ON apns_queue (token, id);
                """)
        }
    }
}
