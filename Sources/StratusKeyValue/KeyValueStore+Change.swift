public import Foundation
public import StratusWire
import Synchronization

extension KeyValueStore {
    /// Why values changed without this process setting them (`NSUbiquitousKeyValueStoreChangeReasonKey`).
    public enum ChangeReason: Int, Sendable, Hashable {
        /// Another device changed the values on the server.
        case serverChange = 0
        /// The first download of the server's values for this device.
        case initialSync = 1
        /// The server refused a value as over a limit; the keys got the server's values back.
        case quotaViolation = 2
        /// The signed-in account changed; the keys were cleared and the new account's values follow.
        case accountChange = 3
    }

    /// One `didChangeExternally` announcement.
    public struct ExternalChange: Sendable, Hashable {
        /// Why.
        public var reason: ChangeReason
        /// The keys whose values changed, sorted.
        public var changedKeys: [String]

        /// Creates an announcement.
        ///
        /// - Parameters:
        ///   - reason: Why.
        ///   - changedKeys: The changed keys.
        public init(reason: ChangeReason, changedKeys: [String]) {
            self.reason = reason
            self.changedKeys = changedKeys
        }
    }

    /// What one ``KeyValueStore/synchronizeNow()`` did with this device's changes.
    ///
    /// ```swift
    /// import StratusKeyValue
    ///
    /// func pushTheme(of store: KeyValueStore) async throws {
    ///     let result = try await store.synchronizeNow()
    ///     if let reason = result.refusedKeys["theme"] { print("not saved:", reason) }
    /// }
    /// ```
    public struct SynchronizationResult: Sendable, Hashable {
        /// Keys whose local change the server refused for good (a limit another device's change made it
        /// pass, a key it does not accept), each with the server's reason. The change is dropped and the key
        /// has the server's value again (announced like any change, ``ChangeReason/quotaViolation`` for limits).
        public var refusedKeys: [String: String] = [:]
        /// Keys whose local change reached the server, sorted.
        public var uploadedKeys: [String] = []

        /// Creates a result.
        ///
        /// - Parameters:
        ///   - refusedKeys: Keys refused for good, with the reasons.
        ///   - uploadedKeys: Keys uploaded.
        public init(refusedKeys: [String: String] = [:], uploadedKeys: [String] = []) {
            self.refusedKeys = refusedKeys
            self.uploadedKeys = uploadedKeys
        }
    }

    /// The `NotificationCenter` name posted (object: the store) with each ``ExternalChange``.
    public static let didChangeExternallyNotification = Notification.Name("StratusKeyValueStoreDidChangeExternally")
    /// The `userInfo` key of the reason (the ``ChangeReason`` raw value, an `Int`).
    public static let changeReasonKey = "StratusKeyValueStoreChangeReasonKey"
    /// The `userInfo` key of the changed keys (`[String]`).
    public static let changedKeysKey = "StratusKeyValueStoreChangedKeysKey"

    /// The store's limits, the same the server enforces (``KeyValueContract/Limits``: 1 MB total,
    /// 1024 keys, 256 KB per value, 64-byte keys; a key is not empty and has no control character,
    /// as every record name).
    public typealias Limits = KeyValueContract.Limits
}

/// Why a `set` was refused: it would break one of ``KeyValueStore/Limits`` (nothing was changed).
public struct KeyValueStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which limit.
    public enum Kind: Sendable, Hashable {
        /// The key is longer than 64 bytes.
        case keyTooLong
        /// The value is larger than 256 KB.
        case valueTooLarge
        /// The store would hold more than 1024 keys.
        case tooManyKeys
        /// The store would hold more than 1 MB.
        case storeFull
        /// The value cannot be encoded or stored locally.
        case storage
        /// The key is empty or holds a control character (tab, newline…): the server accepts neither.
        case invalidKey
    }

    /// Which limit.
    public var kind: Kind
    /// What happened, for people.
    public var description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

/// Fans announcements out to every `didChangeExternally` stream.
final class ChangeBroadcaster: Sendable {
    private let subscribers = Mutex<[UUID: AsyncStream<KeyValueStore.ExternalChange>.Continuation]>([:])

    func stream() -> AsyncStream<KeyValueStore.ExternalChange> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<KeyValueStore.ExternalChange>.makeStream(bufferingPolicy: .unbounded)
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    func send(_ change: KeyValueStore.ExternalChange) {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(change) }
    }

    func finish() {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
