import StratusServer
import StratusSQLite

/// Keeps the per-field query index in step with the records table.
///
/// First slice: queries filter by record type and page by name only, so there
/// is nothing to index yet; filters and sorts bring the index table.
enum SQLiteFieldIndex {
    static func index(_ record: StoredRecord, _ db: SQLiteConnection) throws {}

    static func remove(recordName: String, zoneRowID: Int64, _ db: SQLiteConnection) throws {}

    static func removeZone(_ zoneRowID: Int64, _ db: SQLiteConnection) throws {}
}
