public import StratusSQL

/// The share and usage tables (design note 0017), the same on both back ends but for column types
/// and the participants' user column (`user` on SQLite, `user_name` on PostgreSQL, where `user`
/// is reserved); each back end registers them under its own migration identifiers.
public enum SQLShareSchema {
    /// Shares, participants and short GUIDs.
    ///
    /// - Parameter dialect: The back end's dialect.
    /// - Returns: Statements separated by `;`, without parameters.
    public static func tables(_ dialect: SQLDialect) -> String {
        let types = SQLColumnTypes(dialect)
        let user = dialect == .sqlite ? "user" : "user_name"
        return """
            -- One row per share record; `root_name` is NULL for a zone-wide share.
            CREATE TABLE shares (
                zone_id \(types.integer) NOT NULL,
                share_name TEXT NOT NULL,
                root_name TEXT,
                short_guid TEXT NOT NULL,
                public_permission TEXT NOT NULL,
                PRIMARY KEY (zone_id, share_name)
            )\(types.withoutRowID);
            CREATE UNIQUE INDEX shares_by_guid ON shares (short_guid);
            CREATE INDEX shares_by_root ON shares (zone_id, root_name) WHERE root_name IS NOT NULL;

            -- Participants other than the owner; `\(user)` is NULL until an invitee by e-mail has an account.
            CREATE TABLE share_participants (
                zone_id \(types.integer) NOT NULL,
                share_name TEXT NOT NULL,
                participant_id TEXT NOT NULL,
                \(user) TEXT,
                email TEXT,
                permission TEXT NOT NULL,
                type TEXT NOT NULL,
                status TEXT NOT NULL,
                position \(types.integer) NOT NULL,
                PRIMARY KEY (zone_id, share_name, participant_id)
            )\(types.withoutRowID);
            CREATE INDEX share_participants_by_user ON share_participants (\(user), status) WHERE \(user) IS NOT NULL;

            -- Short GUIDs minted by `createShortGUID`.
            CREATE TABLE short_guids (
                short_guid TEXT PRIMARY KEY NOT NULL,
                zone_id \(types.integer) NOT NULL,
                record_name TEXT NOT NULL
            )\(types.withoutRowID);
            CREATE UNIQUE INDEX short_guids_by_record ON short_guids (zone_id, record_name);
            """
    }

    /// Records that entered or left a record share's hierarchy (moved, deleted, or an ancestor
    /// was), so the share's participants' change feeds show them.
    ///
    /// - Parameter dialect: The back end's dialect.
    /// - Returns: The `CREATE TABLE` statement.
    public static func hierarchyMoves(_ dialect: SQLDialect) -> String {
        let types = SQLColumnTypes(dialect)
        return """
            CREATE TABLE share_hierarchy_moves (
                zone_id \(types.integer) NOT NULL,
                seq \(types.integer) NOT NULL,
                record_name TEXT NOT NULL,
                root_name TEXT NOT NULL,
                PRIMARY KEY (zone_id, seq, record_name, root_name)
            )\(types.withoutRowID);
            """
    }

    /// Bytes of record data and of referenced assets per zone, kept in step with record writes
    /// (data written before the migration is not counted).
    ///
    /// - Parameter dialect: The back end's dialect.
    /// - Returns: The `CREATE TABLE` statement.
    public static func zoneUsage(_ dialect: SQLDialect) -> String {
        let types = SQLColumnTypes(dialect)
        return """
            CREATE TABLE zone_usage (
                zone_id \(types.integer) PRIMARY KEY,
                record_bytes \(types.integer) NOT NULL DEFAULT 0,
                asset_bytes \(types.integer) NOT NULL DEFAULT 0
            );
            """
    }
}
