import StratusPostgres
import StratusServer
import StratusWire

/// Shares, their participants and minted short GUIDs on PostgreSQL: the SQLite tables
/// (design note 0017), with `user_name` for SQLite's `user` (a reserved word here).
enum PostgresShareSchema {
    static func register(in migrator: inout PostgresMigrator) {
        migrator.registerMigration("pg-v5-shares-participants-short-guids") { db in
            try db.execute("""
                -- One row per share record; `root_name` is NULL for a zone-wide share.
                CREATE TABLE shares (
                    zone_id BIGINT NOT NULL,
                    share_name TEXT NOT NULL,
                    root_name TEXT,
                    short_guid TEXT NOT NULL,
                    public_permission TEXT NOT NULL,
                    PRIMARY KEY (zone_id, share_name)
                );
                CREATE UNIQUE INDEX shares_by_guid ON shares (short_guid);
                CREATE INDEX shares_by_root ON shares (zone_id, root_name) WHERE root_name IS NOT NULL;

                -- Participants other than the owner; `user_name` is NULL until an invitee by e-mail has an account.
                CREATE TABLE share_participants (
                    zone_id BIGINT NOT NULL,
                    share_name TEXT NOT NULL,
                    participant_id TEXT NOT NULL,
                    user_name TEXT,
                    email TEXT,
                    permission TEXT NOT NULL,
                    type TEXT NOT NULL,
                    status TEXT NOT NULL,
                    position BIGINT NOT NULL,
                    PRIMARY KEY (zone_id, share_name, participant_id)
                );
                CREATE INDEX share_participants_by_user ON share_participants (user_name, status) WHERE user_name IS NOT NULL;

                -- Short GUIDs minted by `createShortGUID`.
                CREATE TABLE short_guids (
                    short_guid TEXT PRIMARY KEY,
                    zone_id BIGINT NOT NULL,
                    record_name TEXT NOT NULL
                );
                CREATE UNIQUE INDEX short_guids_by_record ON short_guids (zone_id, record_name);
                """)
        }
    }

    /// The hierarchy moves table (the SQLite one), registered after every earlier migration.
    static func registerHierarchyMoves(in migrator: inout PostgresMigrator) {
        migrator.registerMigration("pg-v8-share-hierarchy-moves") { db in
            try db.execute("""
                -- Records that entered or left a record share's hierarchy (moved, deleted, or an
                -- ancestor was), so the share's participants' change feeds show them (design note 0017).
                CREATE TABLE share_hierarchy_moves (
                    zone_id BIGINT NOT NULL,
                    seq BIGINT NOT NULL,
                    record_name TEXT NOT NULL,
                    root_name TEXT NOT NULL,
                    PRIMARY KEY (zone_id, seq, record_name, root_name)
                );
                """)
        }
    }
}

extension PostgresStoreTransaction: ShareStoreWriter {
    private static let shareColumns = "zone_id, share_name, root_name, short_guid, public_permission"

    private func shareRow(_ sql: String, _ parameters: [any PostgresBindable]) throws -> StoredShare? {
        guard let row = try first(sql, parameters) else { return nil }
        var share = StoredShare(
            zoneRowID: try row[0], shareName: try row[1], rootRecordName: try row[2], shortGUID: try row[3],
            publicPermission: SharePermission(rawValue: try row[4]), participants: []
        )
        share.participants = try query(
            """
            SELECT participant_id, user_name, email, permission, type, status FROM share_participants
            WHERE zone_id = $1 AND share_name = $2 ORDER BY position
            """,
            [share.zoneRowID, share.shareName]
        ).map { row in
            StoredParticipant(
                participantID: try row[0], userRecordName: try row[1], emailAddress: try row[2],
                permission: SharePermission(rawValue: try row[3]), type: ParticipantType(rawValue: try row[4]),
                acceptanceStatus: ParticipantAcceptanceStatus(rawValue: try row[5])
            )
        }
        return share
    }

    func share(named name: String, inZone zoneRowID: Int64) throws -> StoredShare? {
        try shareRow("SELECT \(Self.shareColumns) FROM shares WHERE zone_id = $1 AND share_name = $2", [zoneRowID, name])
    }

    func share(rootedAt recordName: String, inZone zoneRowID: Int64) throws -> StoredShare? {
        try shareRow(
            "SELECT \(Self.shareColumns) FROM shares WHERE zone_id = $1 AND root_name = $2 ORDER BY share_name LIMIT 1", [zoneRowID, recordName]
        )
    }

    func share(shortGUID: String) throws -> StoredShare? {
        try shareRow("SELECT \(Self.shareColumns) FROM shares WHERE short_guid = $1", [shortGUID])
    }

    func shortGUID(ofRecord name: String, inZone zoneRowID: Int64) throws -> String? {
        try first("SELECT short_guid FROM short_guids WHERE zone_id = $1 AND record_name = $2", [zoneRowID, name]).map { try $0[0] }
    }

    func record(shortGUID: String) throws -> (zoneRowID: Int64, recordName: String)? {
        try first("SELECT zone_id, record_name FROM short_guids WHERE short_guid = $1", [shortGUID]).map { row in
            (zoneRowID: try row[0] as Int64, recordName: try row[1] as String)
        }
    }

    func grants(of userRecordName: String) throws -> [ShareGrant] {
        try query(
            """
            SELECT p.zone_id, p.share_name, s.root_name, p.permission
            FROM share_participants p JOIN shares s ON s.zone_id = p.zone_id AND s.share_name = p.share_name
            WHERE p.user_name = $1 AND p.status = 'ACCEPTED'
            ORDER BY p.zone_id, p.share_name
            """,
            [userRecordName]
        ).map { row in
            ShareGrant(zoneRowID: try row[0], shareName: try row[1], rootRecordName: try row[2], permission: SharePermission(rawValue: try row[3]))
        }
    }

    /// The share row, then its participants replaced, in one round trip.
    func putShare(_ share: StoredShare) throws {
        var statements = [
            PostgresStatement(
                """
                INSERT INTO shares (zone_id, share_name, root_name, short_guid, public_permission) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (zone_id, share_name) DO UPDATE SET root_name = excluded.root_name, short_guid = excluded.short_guid,
                    public_permission = excluded.public_permission
                """,
                [share.zoneRowID, share.shareName, share.rootRecordName, share.shortGUID, share.publicPermission.rawValue]
            ),
            PostgresStatement("DELETE FROM share_participants WHERE zone_id = $1 AND share_name = $2", [share.zoneRowID, share.shareName]),
        ]
        let participants = share.participants
        if !participants.isEmpty {
            statements.append(
                PostgresStatement(
                    """
                    INSERT INTO share_participants (zone_id, share_name, participant_id, user_name, email, permission, type, status, position)
                    SELECT $1, $2, p.id, p.user_name, p.email, p.permission, p.type, p.status, p.position - 1
                    FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
                        WITH ORDINALITY AS p (id, user_name, email, permission, type, status, position)
                    """,
                    [
                        share.zoneRowID, share.shareName, PostgresArray(participants.map(\.participantID)),
                        PostgresArray(participants.map(\.userRecordName)), PostgresArray(participants.map(\.emailAddress)),
                        PostgresArray(participants.map(\.permission.rawValue)), PostgresArray(participants.map(\.type.rawValue)),
                        PostgresArray(participants.map(\.acceptanceStatus.rawValue)),
                    ]
                )
            )
        }
        try tracking { try db.pipeline(statements) }
    }

    func deleteShare(named name: String, inZone zoneRowID: Int64) throws {
        try tracking {
            try db.pipeline([
                PostgresStatement("DELETE FROM share_participants WHERE zone_id = $1 AND share_name = $2", [zoneRowID, name]),
                PostgresStatement("DELETE FROM shares WHERE zone_id = $1 AND share_name = $2", [zoneRowID, name]),
            ])
        }
    }

    /// Replaces whatever row holds the GUID or the record (SQLite's `INSERT OR REPLACE`).
    func putShortGUID(_ shortGUID: String, recordName: String, inZone zoneRowID: Int64) throws {
        try tracking {
            try db.pipeline([
                PostgresStatement(
                    "DELETE FROM short_guids WHERE short_guid = $1 OR (zone_id = $2 AND record_name = $3)", [shortGUID, zoneRowID, recordName]
                ),
                PostgresStatement(
                    "INSERT INTO short_guids (short_guid, zone_id, record_name) VALUES ($1, $2, $3)", [shortGUID, zoneRowID, recordName]
                ),
            ])
        }
    }

    func recordShareRoots(inZone zoneRowID: Int64) throws -> Set<String> {
        Set(try query("SELECT root_name FROM shares WHERE zone_id = $1 AND root_name IS NOT NULL", [zoneRowID]).map { try $0[0] as String })
    }

    func hierarchyMoves(inZone zoneRowID: Int64, sequences: ClosedRange<Int64>) throws -> [HierarchyMove] {
        try query(
            """
            SELECT seq, record_name, root_name FROM share_hierarchy_moves WHERE zone_id = $1 AND seq BETWEEN $2 AND $3
            ORDER BY seq, record_name, root_name
            """,
            [zoneRowID, sequences.lowerBound, sequences.upperBound]
        ).map { row in HierarchyMove(sequence: try row[0], recordName: try row[1], root: try row[2]) }
    }

    func putHierarchyMove(_ move: HierarchyMove, inZone zoneRowID: Int64) throws {
        try execute(
            "INSERT INTO share_hierarchy_moves (zone_id, seq, record_name, root_name) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
            [zoneRowID, move.sequence, move.recordName, move.root]
        )
    }
}
