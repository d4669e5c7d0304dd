public import StratusServer
import StratusSQL
import StratusWire

/// Shares, their participants and minted short GUIDs (design note 0017), for either back end.
///
/// The participants' user column is `user` on SQLite and `user_name` on PostgreSQL (where `user`
/// is a reserved word); everything else is the same.
public protocol SQLShareStore: SQLStoreTransaction, ShareStoreWriter {}

extension SQLShareStore {
    private static var shareColumns: SQL { "zone_id, share_name, root_name, short_guid, public_permission" }

    /// The participants' user column.
    private var userColumn: SQL { column(sqlite: "user", postgres: "user_name") }

    private func shareRow(_ filter: SQL) throws -> StoredShare? {
        let db = executor
        guard
            var share = try db.fetchOne(
                literal: "SELECT \(Self.shareColumns) FROM shares WHERE \(filter)",
                { row in
                    StoredShare(
                        zoneRowID: try row[0], shareName: try row[1], rootRecordName: try row[2], shortGUID: try row[3],
                        publicPermission: SharePermission(rawValue: try row[4]), participants: []
                    )
                })
        else { return nil }
        share.participants = try db.fetchAll(
            literal: """
                SELECT participant_id, \(userColumn), email, permission, type, status FROM share_participants
                WHERE zone_id = \(share.zoneRowID) AND share_name = \(share.shareName) ORDER BY position
                """
        ) { row in
            StoredParticipant(
                participantID: try row[0], userRecordName: try row[1], emailAddress: try row[2],
                permission: SharePermission(rawValue: try row[3]), type: ParticipantType(rawValue: try row[4]),
                acceptanceStatus: ParticipantAcceptanceStatus(rawValue: try row[5])
            )
        }
        return share
    }

    /// The share whose record is `name` in the zone.
    public func share(named name: String, inZone zoneRowID: Int64) throws -> StoredShare? {
        try shareRow("zone_id = \(zoneRowID) AND share_name = \(name)")
    }

    /// The share rooted at `recordName` in the zone, if any.
    public func share(rootedAt recordName: String, inZone zoneRowID: Int64) throws -> StoredShare? {
        try shareRow("zone_id = \(zoneRowID) AND root_name = \(recordName) ORDER BY share_name LIMIT 1")
    }

    /// The share with this short GUID.
    public func share(shortGUID: String) throws -> StoredShare? {
        try shareRow("short_guid = \(shortGUID)")
    }

    /// The short GUID minted for a record, if any.
    public func shortGUID(ofRecord name: String, inZone zoneRowID: Int64) throws -> String? {
        try executor.fetchOne(String.self, literal: "SELECT short_guid FROM short_guids WHERE zone_id = \(zoneRowID) AND record_name = \(name)")
    }

    /// The record a short GUID was minted for.
    public func record(shortGUID: String) throws -> (zoneRowID: Int64, recordName: String)? {
        try executor.fetchOne(literal: "SELECT zone_id, record_name FROM short_guids WHERE short_guid = \(shortGUID)") { row in
            (zoneRowID: try row[0] as Int64, recordName: try row[1] as String)
        }
    }

    /// What `userRecordName` has accepted: one grant per share, in zone order.
    public func grants(of userRecordName: String) throws -> [ShareGrant] {
        try executor.fetchAll(
            literal: """
                SELECT p.zone_id, p.share_name, s.root_name, p.permission
                FROM share_participants p JOIN shares s ON s.zone_id = p.zone_id AND s.share_name = p.share_name
                WHERE p.\(userColumn) = \(userRecordName) AND p.status = 'ACCEPTED'
                ORDER BY p.zone_id, p.share_name
                """
        ) { row in
            ShareGrant(zoneRowID: try row[0], shareName: try row[1], rootRecordName: try row[2], permission: SharePermission(rawValue: try row[3]))
        }
    }

    /// Inserts or replaces a share and all of its participants, in one round trip on PostgreSQL.
    public func putShare(_ share: StoredShare) throws {
        var statements: [SQL] = [
            """
            INSERT INTO shares (zone_id, share_name, root_name, short_guid, public_permission)
            VALUES (\(share.zoneRowID), \(share.shareName), \(share.rootRecordName), \(share.shortGUID), \(share.publicPermission.rawValue))
            ON CONFLICT (zone_id, share_name) DO UPDATE SET root_name = excluded.root_name, short_guid = excluded.short_guid,
                public_permission = excluded.public_permission
            """,
            "DELETE FROM share_participants WHERE zone_id = \(share.zoneRowID) AND share_name = \(share.shareName)",
        ]
        let participants = Array(share.participants.enumerated())
        // 100 participants (900 parameters) a statement stays far below either database's parameter limit.
        for start in stride(from: 0, to: participants.count, by: 100) {
            let rows: SQL = participants[start..<min(start + 100, participants.count)].map { position, participant -> SQL in
                """
                (\(share.zoneRowID), \(share.shareName), \(participant.participantID), \(participant.userRecordName), \(participant.emailAddress),
                 \(participant.permission.rawValue), \(participant.type.rawValue), \(participant.acceptanceStatus.rawValue), \(position))
                """
            }.joined(separator: ", ")
            statements.append(
                """
                INSERT INTO share_participants (zone_id, share_name, participant_id, \(userColumn), email, permission, type, status, position)
                VALUES \(rows)
                """
            )
        }
        try executor.executeBatch(literal: statements)
    }

    /// Removes a share and its participants; nothing if there is none.
    public func deleteShare(named name: String, inZone zoneRowID: Int64) throws {
        try executor.executeBatch(literal: [
            "DELETE FROM share_participants WHERE zone_id = \(zoneRowID) AND share_name = \(name)",
            "DELETE FROM shares WHERE zone_id = \(zoneRowID) AND share_name = \(name)",
        ])
    }

    /// Records the short GUID of a record, replacing whatever row holds the GUID or the record.
    public func putShortGUID(_ shortGUID: String, recordName: String, inZone zoneRowID: Int64) throws {
        try executor.executeBatch(literal: [
            "DELETE FROM short_guids WHERE short_guid = \(shortGUID) OR (zone_id = \(zoneRowID) AND record_name = \(recordName))",
            "INSERT INTO short_guids (short_guid, zone_id, record_name) VALUES (\(shortGUID), \(zoneRowID), \(recordName))",
        ])
    }

    /// The roots of the zone's record shares.
    public func recordShareRoots(inZone zoneRowID: Int64) throws -> Set<String> {
        Set(try executor.fetchAll(String.self, literal: "SELECT root_name FROM shares WHERE zone_id = \(zoneRowID) AND root_name IS NOT NULL"))
    }

    /// The hierarchy moves of the zone with a change sequence in `sequences`, in sequence order.
    public func hierarchyMoves(inZone zoneRowID: Int64, sequences: ClosedRange<Int64>) throws -> [HierarchyMove] {
        try executor.fetchAll(
            literal: """
                SELECT seq, record_name, root_name FROM share_hierarchy_moves
                WHERE zone_id = \(zoneRowID) AND seq BETWEEN \(sequences.lowerBound) AND \(sequences.upperBound)
                ORDER BY seq, record_name, root_name
                """
        ) { row in HierarchyMove(sequence: try row[0], recordName: try row[1], root: try row[2]) }
    }

    /// Records that a record entered or left the hierarchy of a share (once).
    public func putHierarchyMove(_ move: HierarchyMove, inZone zoneRowID: Int64) throws {
        try executor.execute(
            literal: """
                INSERT INTO share_hierarchy_moves (zone_id, seq, record_name, root_name)
                VALUES (\(zoneRowID), \(move.sequence), \(move.recordName), \(move.root)) ON CONFLICT DO NOTHING
                """
        )
    }
}
