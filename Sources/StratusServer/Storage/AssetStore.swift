/// Asset bookkeeping read primitives, valid inside a store transaction.
///
/// The bytes live in an ``AssetBlobStore`` (files: ``AssetFileStore``); the store keeps which
/// contents exist and which record fields reference them, so reference counts
/// change in the same transaction as the records.
public protocol AssetStoreReader {
    /// The stored content with this key, if any.
    func asset(key: String) throws -> StoredAsset?

    /// How many record fields reference the content.
    func assetReferenceCount(key: String) throws -> Int
}

/// Asset bookkeeping write primitives, valid inside ``RecordStore/write(_:)``.
public protocol AssetStoreWriter: AssetStoreReader {
    /// Records that the content exists (an upload); refreshes its release time when it is unreferenced.
    func putAsset(key: String, size: Int64, now: Int64) throws

    /// Replaces the asset references a record holds; contents that lose their last reference are stamped `now`.
    func replaceAssetReferences(zoneRowID: Int64, recordName: String, keys: [AssetReferenceKey], now: Int64) throws

    /// Drops every reference held by records of a zone (the zone is being deleted).
    func removeAssetReferences(inZone zoneRowID: Int64, now: Int64) throws

    /// Contents no field references whose last upload or release was at or before `releasedBefore`, at most `limit`.
    func collectableAssets(releasedBefore: Int64, limit: Int) throws -> [String]

    /// Forgets a content (its file is removed by the caller).
    func deleteAsset(key: String) throws
}

/// A stored asset content: its key (hex digest) and size.
public struct StoredAsset: Hashable, Sendable {
    /// The content key: 40 hex digits of the content's SHA-256 prefix.
    public var key: String
    /// The size in bytes.
    public var size: Int64
    /// When it was last uploaded or lost its last reference, in milliseconds since 1970.
    public var releasedAt: Int64

    /// Creates a stored asset.
    public init(key: String, size: Int64, releasedAt: Int64) {
        self.key = key
        self.size = size
        self.releasedAt = releasedAt
    }
}

/// One asset reference of a record: which field (and list position) holds which content.
public struct AssetReferenceKey: Hashable, Sendable {
    /// The field holding it.
    public var fieldName: String
    /// Its index in an asset list (0 for a single asset).
    public var position: Int
    /// The content key.
    public var key: String

    /// Creates a reference key.
    public init(fieldName: String, position: Int, key: String) {
        self.fieldName = fieldName
        self.position = position
        self.key = key
    }
}
