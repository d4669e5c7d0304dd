import StratusWire

/// The portable export format, version 1: one directory per container (Documentation/0020-export-format.md).
///
/// Every file but the manifest is JSON (`schema.json`) or JSON Lines (one object per line,
/// canonical: sorted keys, exact numbers), in an order that does not depend on the back end,
/// so exporting the same data twice gives the same bytes. The manifest lists every other file
/// with its size and SHA-256, and an import checks them all.
public enum ExportFormat {
    /// The manifest's `format`.
    public static let name = "stratus-export"
    /// The version this Stratus writes, and the newest it reads.
    public static let version = 1

    static let manifestFile = "stratus-export.json"
    static let schemaFile = "schema.json"
    static let usersFile = "users.jsonl"
    static let apiTokensFile = "api-tokens.jsonl"
    static let serverKeysFile = "server-keys.jsonl"
    static let zonesFile = "zones.jsonl"
    static let recordsFile = "records.jsonl"
    static let sharesFile = "shares.jsonl"
    static let shortGUIDsFile = "short-guids.jsonl"
    static let subscriptionsFile = "subscriptions.jsonl"
    static let assetsFolder = "assets"

    /// The data files, in the order an export writes them.
    static let dataFiles = [
        schemaFile, usersFile, apiTokensFile, serverKeysFile, zonesFile, recordsFile, sharesFile, shortGUIDsFile, subscriptionsFile,
    ]

    /// The largest manifest read into memory.
    static let maximumManifestSize = 64 << 20
    /// The largest line of a JSON Lines file (and the largest `schema.json`).
    static let maximumLineSize = 16 << 20

    /// Whether `name` (a path relative to the export directory) may appear in an export.
    static func isAllowed(_ name: String) -> Bool {
        if name == manifestFile || dataFiles.contains(name) { return true }
        let prefix = assetsFolder + "/"
        return name.hasPrefix(prefix) && isAssetKey(String(name.dropFirst(prefix.count)))
    }

    /// Content keys are the first 40 lowercase hex digits of the content's SHA-256.
    static func isAssetKey(_ key: String) -> Bool {
        isHex(key, digits: 40)
    }

    /// Whether `text` is exactly `digits` lowercase hex digits.
    static func isHex(_ text: String, digits: Int) -> Bool {
        text.utf8.count == digits && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

/// `stratus-export.json`: what an export holds and how to check it.
public struct ExportManifest: Codable, Hashable, Sendable {
    /// Always ``ExportFormat/name``.
    public var format: String
    /// The format version; an import refuses a newer one.
    public var version: Int
    /// The container exported.
    public var container: String
    /// When the export's snapshot was read (ISO 8601).
    public var exportedAt: String
    /// The back end it came from (`sqlite` or `postgres`), for people.
    public var source: String
    /// How many of each thing the files hold.
    public var counts: Counts
    /// Every other file, with its size and SHA-256.
    public var files: [File]

    /// How many lines (or files) of each kind.
    public struct Counts: Codable, Hashable, Sendable {
        /// Lines of `users.jsonl`.
        public var users = 0
        /// Lines of `api-tokens.jsonl`.
        public var apiTokens = 0
        /// Lines of `server-keys.jsonl`.
        public var serverKeys = 0
        /// Lines of `zones.jsonl`.
        public var zones = 0
        /// Lines of `records.jsonl`.
        public var records = 0
        /// Lines of `shares.jsonl`.
        public var shares = 0
        /// Lines of `short-guids.jsonl`.
        public var shortGUIDs = 0
        /// Lines of `subscriptions.jsonl`.
        public var subscriptions = 0
        /// Files in `assets/`.
        public var assets = 0
        /// The bytes of every asset.
        public var assetBytes: Int64 = 0
    }

    /// One file of the export.
    public struct File: Codable, Hashable, Sendable {
        /// The path inside the export directory (`records.jsonl`, `assets/<key>`).
        public var name: String
        /// Its size in bytes.
        public var size: Int64
        /// Its SHA-256, lowercase hex.
        public var sha256: String

        /// Creates an entry.
        public init(name: String, size: Int64, sha256: String) {
            self.name = name
            self.size = size
            self.sha256 = sha256
        }
    }
}

/// The lines of the export's files: the store's values in a stable, documented shape.
enum Exported {
    /// `schema.json`: the schema of each environment.
    struct Schemas: Codable, Hashable {
        var development: Schema
        var production: Schema
    }

    /// A line of `zones.jsonl`: a live zone of one database.
    struct Zone: Codable, Hashable {
        /// The zone's number in this export; records, shares and short GUIDs name their zone by it.
        var id: Int
        var environment: Environment
        var scope: DatabaseScope
        /// The owner's user record name, or `_public`.
        var owner: String
        var zoneName: String
        var createdAt: Int64
        /// The last change sequence the zone handed out: an import continues after it, so change
        /// tags (derived from sequences) are never handed out twice.
        var changeSequence: Int64
    }

    /// When and by whom.
    struct Stamp: Codable, Hashable {
        var timestamp: Int64
        var userRecordName: String
        var deviceID: String
    }

    /// A line of `records.jsonl`: a live record, its latest version only, in its zone's change order.
    struct Record: Codable, Hashable {
        var zone: Int
        var recordName: String
        var recordType: String
        var changeTag: String
        var changeSequence: Int64
        var created: Stamp
        var modified: Stamp
        /// Typed wire values (`{"type":…,"value":…}`); assets as `fileChecksum` and `size`.
        var fields: [String: FieldValue]
    }

    /// A line of `shares.jsonl`: the share behind a `cloudkit.share` record.
    struct Share: Codable, Hashable {
        var zone: Int
        var shareName: String
        var rootRecordName: String?
        var shortGUID: String
        var publicPermission: SharePermission
        var participants: [Participant]
    }

    /// A participant of a share.
    struct Participant: Codable, Hashable {
        var participantID: String
        var userRecordName: String?
        var emailAddress: String?
        var permission: SharePermission
        var type: ParticipantType
        var acceptanceStatus: ParticipantAcceptanceStatus
    }

    /// A line of `short-guids.jsonl`: a short GUID minted for a record.
    struct ShortGUID: Codable, Hashable {
        var zone: Int
        var recordName: String
        var shortGUID: String
    }

    /// A line of `subscriptions.jsonl`.
    struct SubscriptionEntry: Codable, Hashable {
        var environment: Environment
        var scope: DatabaseScope
        var owner: String
        var subscriber: String
        var createdAt: Int64
        var subscription: Subscription
    }

    /// A line of `users.jsonl`: an account, with its password's Argon2id hash.
    struct User: Codable, Hashable {
        var userRecordName: String
        var emailAddress: String
        var nameComponents: NameComponents
        var isDiscoverable: Bool
        var passwordHash: String?
        var createdAt: Int64
        var emailVerifiedAt: Int64?
        /// When the account was disabled; absent for an enabled account (and in exports made before
        /// accounts could be disabled, which therefore import as enabled).
        var disabledAt: Int64?
    }

    /// A line of `api-tokens.jsonl`: an API token of the container, as its SHA-256 (never the token).
    struct APIToken: Codable, Hashable {
        var tokenHash: String
        var prefix: String
        var environment: Environment
        var name: String
        var signInCallbackURL: String?
        var allowedOrigins: [String]
        var createdAt: Int64
        var revokedAt: Int64?
    }

    /// A line of `server-keys.jsonl`: a server-to-server public key of the container.
    struct ServerKey: Codable, Hashable {
        var keyID: String
        var environment: Environment
        var name: String
        var publicKeyPEM: String
        var createdAt: Int64
        var revokedAt: Int64?
    }
}
