import StratusServer
import StratusSQLite
import StratusWire

/// Shares, their participants and minted short GUIDs (design note 0017).
///
/// A migration of its own, registered after the usage migration.
enum SQLiteShareSchema {
    static let migrationIdentifier = "share-v1-shares-participants-short-guids"

    static func register(in migrator: inout SQLiteMigrator) {
        migrator.registerMigration(migrationIdentifier) { db in
            try db.execute(sql: """
                -- One row per share record; `root_name` is NULL for a zone-wide share.
                CREATE TABLE shares (
                    zone_id INTEGER NOT NULL,
                    share_name TEXT NOT NULL,
                    root_name TEXT,
                    short_guid TEXT NOT NULL,
                    public_permission TEXT NOT NULL,
                    PRIMARY KEY (zone_id, share_name)
                ) WITHOUT ROWID;
                CREATE UNIQUE INDEX shares_by_guid ON shares (short_guid);
                CREATE INDEX shares_by_root ON shares (zone_id, root_name) WHERE root_name IS NOT NULL;

                -- Participants other than the owner; `user` is NULL until an invitee by e-mail has an account.
                CREATE TABLE share_participants (
                    zone_id INTEGER NOT NULL,
                    share_name TEXT NOT NULL,
                    participant_id TEXT NOT NULL,
                    user TEXT,
                    email TEXT,
                    permission TEXT NOT NULL,
                    type TEXT NOT NULL,
                    status TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    PRIMARY KEY (zone_id, share_name, participant_id)
                ) WITHOUT ROWID;
                CREATE INDEX share_participants_by_user ON share_participants (user, status) WHERE user IS NOT NULL;

                -- Short GUIDs minted by `createShortGUID`.
                CREATE TABLE short_guids (
                    short_guid TEXT PRIMARY KEY NOT NULL,
                    zone_id INTEGER NOT NULL,
                    record_name TEXT NOT NULL
                ) WITHOUT ROWID;
                CREATE UNIQUE INDEX short_guids_by_record ON short_guids (zone_id, record_name);
                """)
        }
    }

    /// The hierarchy moves table (`share-v2-hierarchy-moves`), registered after every earlier migration.
    static func registerHierarchyMoves(in migrator: inout SQLiteMigrator) {
        migrator.registerMigration("share-v2-hierarchy-moves") { db in
            try db.execute(sql: """
                -- Records that entered or left a record share's hierarchy (moved, deleted, or an
                -- ancestor was), so the share's participants' change feeds show them (design note 0017).
                CREATE TABLE share_hierarchy_moves (
                    zone_id INTEGER NOT NULL,
                    seq INTEGER NOT NULL,
                    record_name TEXT NOT NULL,
                    root_name TEXT NOT NULL,
                    PRIMARY KEY (zone_id, seq, record_name, root_name)
                ) WITHOUT ROWID;
                """)
        }
    }
}

extension SQLiteStoreTransaction: ShareStoreWriter {
    private static let shareColumns = "zone_id, share_name, root_name, short_guid, public_permission"

    private func shareRow(_ sql: String, _ arguments: SQLiteArguments) throws -> StoredShare? {
        guard
            var share = try db.fetchOne(sql, arguments, { row in
                StoredShare(
                    zoneRowID: try row[0], shareName: try row[1], rootRecordName: try row[2], shortGUID: try row[3],
                    publicPermission: SharePermission(rawValue: try row[4]), participants: []
                )
            })
        else { return nil }
        share.participants = try db.fetchAll(
            """
            SELECT participant_id, user, email, permission, type, status FROM share_participants
            WHERE zone_id = ? AND share_name = ? ORDER BY position
            """,
            [share.zoneRowID, share.shareName]
        ) { row in
            StoredParticipant(
                participantID: try row[0], userRecordName: try row[1], emailAddress: try row[2],
                permission: SharePermission(rawValue: try row[3]), type: ParticipantType(rawValue: try row[4]),
                acceptanceStatus: ParticipantAcceptanceStatus(rawValue: try row[5])
            )
        }
        return share
    }

    func share(named name: String, inZone zoneRowID: Int64) throws -> StoredShare? {
        try shareRow("SELECT \(Self.shareColumns) FROM shares WHERE zone_id = ? AND share_name = ?", [zoneRowID, name])
    }

    func share(rootedAt recordName: String, inZone zoneRowID: Int64) throws -> StoredShare? {
        try shareRow("SELECT \(Self.shareColumns) FROM shares WHERE zone_id = ? AND root_name = ? LIMIT 1", [zoneRowID, recordName])
    }

    func share(shortGUID: String) throws -> StoredShare? {
        try shareRow("SELECT \(Self.shareColumns) FROM shares WHERE short_guid = ?", [shortGUID])
    }

    func shortGUID(ofRecord name: String, inZone zoneRowID: Int64) throws -> String? {
        try db.fetchOne(String.self, "SELECT short_guid FROM short_guids WHERE zone_id = ? AND record_name = ?", [zoneRowID, name])
    }

    func record(shortGUID: String) throws -> (zoneRowID: Int64, recordName: String)? {
        try db.fetchOne("SELECT zone_id, record_name FROM short_guids WHERE short_guid = ?", [shortGUID]) { row in
            (zoneRowID: try row[0] as Int64, recordName: try row[1] as String)
        }
    }

    func grants(of userRecordName: String) throws -> [ShareGrant] {
        try db.fetchAll(
            """
            SELECT p.zone_id, p.share_name, s.root_name, p.permission
            FROM share_participants p JOIN shares s ON s.zone_id = p.zone_id AND s.share_name = p.share_name
            WHERE p.user = ? AND p.status = 'ACCEPTED'
            ORDER BY p.zone_id, p.share_name
            """,
            [userRecordName]
        ) { row in
            ShareGrant(zoneRowID: try row[0], shareName: try row[1], rootRecordName: try row[2], permission: SharePermission(rawValue: try row[3]))
        }
    }

    func putShare(_ share: StoredShare) throws {
        try db.execute(
            """
            INSERT INTO shares (zone_id, share_name, root_name, short_guid, public_permission) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (zone_id, share_name) DO UPDATE SET root_name = excluded.root_name, short_guid = excluded.short_guid,
                public_permission = excluded.public_permission
            """,
            [share.zoneRowID, share.shareName, share.rootRecordName, share.shortGUID, share.publicPermission.rawValue]
        )
        try db.execute("DELETE FROM share_participants WHERE zone_id = ? AND share_name = ?", [share.zoneRowID, share.shareName])
        for (position, participant) in share.participants.enumerated() {
            try db.execute(
                """
                INSERT INTO share_participants (zone_id, share_name, participant_id, user, email, permission, type, status, position)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    share.zoneRowID, share.shareName, participant.participantID, participant.userRecordName, participant.emailAddress,
                    participant.permission.rawValue, participant.type.rawValue, participant.acceptanceStatus.rawValue, position,
                ]
            )
        }
    }

    func deleteShare(named name: String, inZone zoneRowID: Int64) throws {
        try db.execute("DELETE FROM share_participants WHERE zone_id = ? AND share_name = ?", [zoneRowID, name])
        try db.execute("DELETE FROM shares WHERE zone_id = ? AND share_name = ?", [zoneRowID, name])
    }

    func putShortGUID(_ shortGUID: String, recordName: String, inZone zoneRowID: Int64) throws {
        try db.execute(
            "INSERT OR REPLACE INTO short_guids (short_guid, zone_id, record_name) VALUES (?, ?, ?)", [shortGUID, zoneRowID, recordName]
        )
    }

    func recordShareRoots(inZone zoneRowID: Int64) throws -> Set<String> {
        Set(try db.fetchAll(String.self, "SELECT root_name FROM shares WHERE zone_id = ? AND root_name IS NOT NULL", [zoneRowID]))
    }

    func hierarchyMoves(inZone zoneRowID: Int64, sequences: ClosedRange<Int64>) throws -> [HierarchyMove] {
        try db.fetchAll(
            """
            SELECT seq, record_name, root_name FROM share_hierarchy_moves WHERE zone_id = ? AND seq BETWEEN ? AND ?
            ORDER BY seq, record_name, root_name
            """,
            [zoneRowID, sequences.lowerBound, sequences.upperBound]
        ) { row in HierarchyMove(sequence: try row[0], recordName: try row[1], root: try row[2]) }
    }

    func putHierarchyMove(_ move: HierarchyMove, inZone zoneRowID: Int64) throws {
        try db.execute(
            "INSERT OR IGNORE INTO share_hierarchy_moves (zone_id, seq, record_name, root_name) VALUES (?, ?, ?, ?)",
            [zoneRowID, move.sequence, move.recordName, move.root]
        )
    }
}
