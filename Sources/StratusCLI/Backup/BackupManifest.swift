import Foundation

/// `stratus-backup.json`, the last entry of a backup archive: what it holds, each file with its
/// size and SHA-256, so a restore checks every byte before it moves anything into place.
struct BackupManifest: Codable, Equatable {
    /// Always `stratus-backup`.
    var format = "stratus-backup"
    /// The archive layout's version; a restore refuses a newer one.
    var version = 1
    /// When the database snapshot was taken (ISO 8601).
    var createdAt: String
    /// The back end the snapshot came from: `sqlite` (`database.sqlite`) or `postgres` (`database.pgdump`).
    var database: String
    /// Every other entry of the archive.
    var files: [File]

    struct File: Codable, Equatable {
        var name: String
        var size: Int64
        var sha256: String
    }

    static let entryName = "stratus-backup.json"
    static let databaseEntry = "database.sqlite"
    static let tokenSecretEntry = "token-secret"
    static let assetPrefix = "assets/"

    /// Whether `name` is an entry a backup may hold: anything else in an archive is refused, so
    /// an archive cannot name a path outside the restore's staging folder.
    static func isAllowed(_ name: String) -> Bool {
        if [entryName, databaseEntry, PostgresBackup.dumpEntry, tokenSecretEntry].contains(name) { return true }
        guard name.hasPrefix(assetPrefix) else { return false }
        return isAssetKey(String(name.dropFirst(assetPrefix.count)))
    }

    /// Content keys are the first 40 hex digits of the content's SHA-256.
    static func isAssetKey(_ key: String) -> Bool {
        key.utf8.count == 40 && key.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
