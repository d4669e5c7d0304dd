/// The per-type keys declared optional, as ``SyncConfiguration``'s global ones are:
/// `static let changeDateKey: String? = "modified"` is read like `static let changeDateKey = "modified"`.
///
/// ``SyncableEntity`` (and `StratusStoreSync`'s `StoreEntityMapping`) require the keys as `String`,
/// the seed's type. A declaration of another type is, to Swift, a second property of the same name
/// that satisfies nothing, and the protocol's default would win without a word. Declared here with
/// the optional type, the keys are requirements of their own, so either spelling is the one read.
/// `nil` (the default) or `""` uses the global key.
///
/// ```swift
/// import Foundation
/// import StratusSync
///
/// // Safety: `fields` is read and written only under `lock`.
/// final class Draft: SyncableEntity, @unchecked Sendable {
///     private let lock = NSLock()
///     private var fields: [String: Any] = [:]
///     func value(forKey key: String) -> Any? { lock.withLock { fields[key] } }
///     func setValue(_ value: Any?, forKey key: String) { lock.withLock { fields[key] = value } }
///     static let recordType = "Draft"
///     static let mapping = ["text": "text"]
///     static let changeDateKey: String? = "edited"  // read as if declared `String`
/// }
/// ```
public protocol OptionalSyncKeys {
    /// The local property that stores the record name; `nil` uses ``SyncableEntity/syncIdKey``.
    static var syncIdKey: String? { get }
    /// The local property that stores when the entity last changed; `nil` uses ``SyncableEntity/changeDateKey``.
    static var changeDateKey: String? { get }
}

extension OptionalSyncKeys {
    /// None: the `String` requirement (or the global key) applies.
    public static var syncIdKey: String? { nil }
    /// None: the `String` requirement (or the global key) applies.
    public static var changeDateKey: String? { nil }

    /// The sync-ID key `Self` declares in either spelling: `key` (the `String` requirement) unless it
    /// is empty, else the optional one; `""` when neither names a key.
    package static func declaredSyncIdKey(_ key: String) -> String {
        key.isEmpty ? (Self.self as any OptionalSyncKeys.Type).syncIdKey ?? "" : key
    }

    /// The change-date key `Self` declares in either spelling (see ``declaredSyncIdKey(_:)``).
    package static func declaredChangeDateKey(_ key: String) -> String {
        key.isEmpty ? (Self.self as any OptionalSyncKeys.Type).changeDateKey ?? "" : key
    }
}
