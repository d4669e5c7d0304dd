/// The key-value store's contract between the client (`StratusKeyValue`'s `KeyValueStore`) and the
/// server, which enforces it: where the store lives, and its limits.
///
/// Each user's key-value store is the reserved zone ``zoneName`` of their private database, one
/// record of type ``recordType`` per key (record name = key, the encoded value in the field
/// ``valueField``), so it syncs with the same change feed and subscriptions as everything else.
/// The client refuses a `set` past a limit at once; the server refuses a `records/modify` into the
/// zone past one with `QUOTA_EXCEEDED` and the ``Violation``'s reason, and writes nothing of it.
///
/// ```swift
/// import StratusWire
///
/// let problem = KeyValueContract.violation(key: "theme", size: 4, otherKeys: 0, otherBytes: 0)
/// assert(problem == nil)
/// ```
public enum KeyValueContract {
    /// The reserved zone's name.
    public static let zoneName = "StratusKeyValueStore"
    /// The record type of a key.
    public static let recordType = "KeyValue"
    /// The field holding a key's encoded value.
    public static let valueField = "value"

    /// The store's limits (those of `NSUbiquitousKeyValueStore`): 1 MB in all, 1024 keys,
    /// 256 KB per value, 64-byte keys.
    public enum Limits {
        /// Total bytes of keys (UTF-8) and encoded values, per user and app.
        public static let maximumTotalBytes = 1_048_576
        /// Keys per user and app.
        public static let maximumKeys = 1024
        /// Bytes of one encoded value.
        public static let maximumValueBytes = 262_144
        /// Bytes (UTF-8) of one key.
        public static let maximumKeyBytes = 64
    }

    /// The limit a value would break.
    public enum Violation: Hashable, Sendable, CustomStringConvertible {
        /// The key has `bytes` bytes, more than ``Limits/maximumKeyBytes``.
        case keyTooLong(key: String, bytes: Int)
        /// The value has `bytes` bytes, more than ``Limits/maximumValueBytes``.
        case valueTooLarge(key: String, bytes: Int)
        /// The store would hold `count` keys, more than ``Limits/maximumKeys``.
        case tooManyKeys(key: String, count: Int)
        /// The store would hold `bytes` bytes, more than ``Limits/maximumTotalBytes``.
        case storeFull(key: String, bytes: Int)

        /// The reason, naming the key and the limit.
        public var description: String {
            switch self {
            case .keyTooLong(let key, let bytes):
                "key '\(key.prefix(80))' is \(bytes) bytes; keys may have at most \(Limits.maximumKeyBytes)"
            case .valueTooLarge(let key, let bytes):
                "the value of '\(key)' is \(bytes) bytes; a value may have at most \(Limits.maximumValueBytes)"
            case .tooManyKeys(let key, let count):
                "storing '\(key)' would make \(count) keys; at most \(Limits.maximumKeys) are allowed"
            case .storeFull(let key, let bytes):
                "storing '\(key)' would use \(bytes) bytes; at most \(Limits.maximumTotalBytes) are allowed in total"
            }
        }
    }

    /// The limit storing `size` bytes under `key` would break, given the other keys' usage; `nil` when it fits.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - size: The value's size: its encoded bytes (the server counts ``valueSize(_:)``).
    ///   - otherKeys: How many other keys are stored.
    ///   - otherBytes: The bytes (keys and values) the other keys use.
    /// - Returns: The first limit broken, checked in the order of ``Violation``'s cases.
    public static func violation(key: String, size: Int, otherKeys: Int, otherBytes: Int) -> Violation? {
        let keyBytes = key.utf8.count
        if keyBytes > Limits.maximumKeyBytes { return .keyTooLong(key: key, bytes: keyBytes) }
        if size > Limits.maximumValueBytes { return .valueTooLarge(key: key, bytes: size) }
        if otherKeys + 1 > Limits.maximumKeys { return .tooManyKeys(key: key, count: otherKeys + 1) }
        if otherBytes + keyBytes + size > Limits.maximumTotalBytes { return .storeFull(key: key, bytes: otherBytes + keyBytes + size) }
        return nil
    }

    /// The size a key's record counts for on the server: the bytes of its `BYTES` and `STRING`
    /// fields, the JSON of others, summed over the record's fields.
    ///
    /// - Parameter fields: The record's fields.
    /// - Returns: The size in bytes.
    /// - Throws: ``WireError`` for a value with no JSON form.
    public static func valueSize(_ fields: [String: FieldValue]) throws(WireError) -> Int {
        var total = 0
        for value in fields.values {
            switch value {
            case .bytes(let data): total += data.count
            case .string(let text): total += text.utf8.count
            default: total += try WireCoding.encode(value).count
            }
        }
        return total
    }
}
