public import Foundation
public import StratusClient
public import StratusLogging
public import StratusWire
import Synchronization

/// The `NSUbiquitousKeyValueStore` of Stratus: a small set of keys and property-list values that
/// follow the signed-in user to every device.
///
/// Values are kept locally in SQLite, so reads never wait and writes work offline; changes upload
/// soon after each `set` (or after ``synchronize()``), and other devices' changes arrive through
/// the store's zone change feed — promptly when pushes are on — announced by
/// ``didChangeExternally`` and the ``didChangeExternallyNotification``. Conflicts resolve per key:
/// the change the server commits last wins.
///
/// On the server the store is the reserved zone `StratusKeyValueStore` of the user's private
/// database, one record per key; the limits (``Limits``) are enforced there and here, both from
/// ``KeyValueContract``.
///
/// ```swift
/// import Foundation
/// import StratusClient
/// import StratusKeyValue
///
/// func followTheme(container: Container, support: URL, apply: @escaping @Sendable (String?) -> Void) throws -> KeyValueStore {
///     let store = try KeyValueStore(container: container, databaseURL: support.appendingPathComponent("kv.sqlite"))
///     try store.set("dark", forKey: "theme")
///     apply(store.string(forKey: "theme"))
///     Task {
///         for await change in store.didChangeExternally where change.changedKeys.contains("theme") {
///             apply(store.string(forKey: "theme"))
///         }
///     }
///     return store
/// }
/// ```
public final class KeyValueStore: Sendable {
    /// How the store syncs.
    public struct Configuration: Sendable {
        /// Sync after each change and at opening (otherwise only on ``synchronize()``).
        public var syncsAutomatically = true
        /// Listen to the web courier for other devices' changes (a zone subscription on the store's zone).
        public var observesPushes = true
        /// The web courier settings when ``observesPushes`` is on.
        public var notifications = NotificationConfiguration()
        /// Also sync on this period (a fallback when pushes are off); `nil` never.
        public var pollInterval: Duration?
        /// The waits between failed syncs (network down, server busy).
        public var retryBackoff: RetryPolicy = {
            var policy = RetryPolicy()
            policy.initialBackoff = .seconds(1)
            policy.maximumBackoff = .seconds(60)
            return policy
        }()
        /// Where the store logs sync failures.
        public var logger: Logger = .disabled

        /// Creates the default configuration.
        public init() {}
    }

    /// The reserved zone every user's store lives in (``KeyValueContract/zoneName``).
    public static let zoneID = ZoneID(zoneName: KeyValueContract.zoneName)
    /// The record type of one key (``KeyValueContract/recordType``).
    public static let recordType = KeyValueContract.recordType
    /// The field holding a key's encoded value (``KeyValueContract/valueField``).
    public static let valueField = KeyValueContract.valueField

    let container: Container
    let configuration: Configuration
    let storage: LocalKeyValueStorage
    let state: Mutex<State>
    let broadcaster = ChangeBroadcaster()
    let requests: AsyncStream<SyncRequest>.Continuation
    private let tasks: Mutex<[Task<Void, Never>]>

    /// Opens (or creates) the store of `container` kept in the SQLite file at `databaseURL`.
    ///
    /// - Parameters:
    ///   - container: The container whose signed-in user owns the store.
    ///   - databaseURL: The local file; `nil` keeps values in memory only (tests, previews).
    ///   - configuration: Sync behaviour.
    /// - Throws: ``KeyValueStoreError`` with ``KeyValueStoreError/Kind/storage`` when the file cannot be opened.
    public init(container: Container, databaseURL: URL?, configuration: Configuration = Configuration()) throws {
        self.container = container
        self.configuration = configuration
        do {
            storage = try LocalKeyValueStorage(path: databaseURL?.path ?? ":memory:")
            state = Mutex(try State(storage.load()))
        } catch {
            throw KeyValueStoreError(.storage, "cannot open the key-value store file: \(error)")
        }
        let (stream, continuation) = AsyncStream<SyncRequest>.makeStream(bufferingPolicy: .unbounded)
        requests = continuation
        tasks = Mutex([])
        startTasks(requests: stream)
        if configuration.syncsAutomatically { synchronize() }
    }

    deinit {
        close()
    }

    /// Stops syncing and ends every ``didChangeExternally`` sequence; values stay readable.
    public func close() {
        requests.finish()
        for task in tasks.withLock({ $0 }) { task.cancel() }
        broadcaster.finish()
    }

    // MARK: Reading

    /// The value of `key`, whatever its type.
    ///
    /// - Parameter key: The key.
    public func object(forKey key: String) -> Value? { state.withLock { $0.values[key] } }
    /// The string at `key`, if it is one.
    ///
    /// - Parameter key: The key.
    public func string(forKey key: String) -> String? { object(forKey: key)?.stringValue }
    /// The integer at `key`, if it is one.
    ///
    /// - Parameter key: The key.
    public func int64(forKey key: String) -> Int64? { object(forKey: key)?.int64Value }
    /// The number at `key`, if it is one.
    ///
    /// - Parameter key: The key.
    public func double(forKey key: String) -> Double? { object(forKey: key)?.doubleValue }
    /// The Boolean at `key`, if it is one.
    ///
    /// - Parameter key: The key.
    public func bool(forKey key: String) -> Bool? { object(forKey: key)?.boolValue }
    /// The bytes at `key`, if they are data.
    ///
    /// - Parameter key: The key.
    public func data(forKey key: String) -> Data? { object(forKey: key)?.dataValue }
    /// The list at `key`, if it is one.
    ///
    /// - Parameter key: The key.
    public func array(forKey key: String) -> [Value]? { object(forKey: key)?.arrayValue }
    /// The dictionary at `key`, if it is one.
    ///
    /// - Parameter key: The key.
    public func dictionary(forKey key: String) -> [String: Value]? { object(forKey: key)?.dictionaryValue }
    /// Every key and value this device knows.
    public var dictionaryRepresentation: [String: Value] { state.withLock { $0.values } }

    // MARK: Writing

    /// Sets (or, with `nil`, removes) the value of `key`; it uploads soon.
    ///
    /// - Parameters:
    ///   - value: The value; `nil` removes the key.
    ///   - key: The key (1 to 64 bytes of UTF-8, no control characters).
    /// - Throws: ``KeyValueStoreError`` when the key is not valid or a limit would be passed; nothing changes then.
    public func set(_ value: Value?, forKey key: String) throws {
        let encoded = try value.map { value in
            do {
                return try value.encoded()
            } catch {
                throw KeyValueStoreError(.storage, "cannot encode the value of '\(key)': \(error)")
            }
        }
        try state.withLock { state in
            try State.validate(key: key)
            if let encoded { try state.admit(key: key, size: encoded.count) }
            let seq = state.nextSeq
            do {
                try storage.recordLocalChange(key: key, value: encoded, seq: seq)
            } catch {
                throw KeyValueStoreError(.storage, "cannot save '\(key)' locally: \(error)")
            }
            state.nextSeq += 1
            state.store(key: key, value: value, size: encoded?.count)
            state.pending[key] = seq
        }
        if configuration.syncsAutomatically { synchronize() }
    }

    /// Sets a string.
    ///
    /// - Parameters:
    ///   - value: The string.
    ///   - key: The key.
    /// - Throws: ``KeyValueStoreError`` when a limit would be passed.
    public func set(_ value: String, forKey key: String) throws { try set(Value.string(value), forKey: key) }
    /// Sets an integer.
    ///
    /// - Parameters:
    ///   - value: The integer.
    ///   - key: The key.
    /// - Throws: ``KeyValueStoreError`` when a limit would be passed.
    public func set(_ value: Int64, forKey key: String) throws { try set(Value.int64(value), forKey: key) }
    /// Sets an integer.
    ///
    /// - Parameters:
    ///   - value: The integer.
    ///   - key: The key.
    /// - Throws: ``KeyValueStoreError`` when a limit would be passed.
    public func set(_ value: Int, forKey key: String) throws { try set(Value.int64(Int64(value)), forKey: key) }
    /// Sets a number.
    ///
    /// - Parameters:
    ///   - value: The number.
    ///   - key: The key.
    /// - Throws: ``KeyValueStoreError`` when a limit would be passed.
    public func set(_ value: Double, forKey key: String) throws { try set(Value.double(value), forKey: key) }
    /// Sets a Boolean.
    ///
    /// - Parameters:
    ///   - value: The Boolean.
    ///   - key: The key.
    /// - Throws: ``KeyValueStoreError`` when a limit would be passed.
    public func set(_ value: Bool, forKey key: String) throws { try set(Value.bool(value), forKey: key) }
    /// Sets bytes.
    ///
    /// - Parameters:
    ///   - value: The bytes.
    ///   - key: The key.
    /// - Throws: ``KeyValueStoreError`` when a limit would be passed.
    public func set(_ value: Data, forKey key: String) throws { try set(Value.data(value), forKey: key) }
    /// Sets a list.
    ///
    /// - Parameters:
    ///   - value: The list.
    ///   - key: The key.
    /// - Throws: ``KeyValueStoreError`` when a limit would be passed.
    public func set(_ value: [Value], forKey key: String) throws { try set(Value.array(value), forKey: key) }
    /// Sets a dictionary.
    ///
    /// - Parameters:
    ///   - value: The dictionary.
    ///   - key: The key.
    /// - Throws: ``KeyValueStoreError`` when a limit would be passed.
    public func set(_ value: [String: Value], forKey key: String) throws { try set(Value.dictionary(value), forKey: key) }

    /// Removes `key`; the removal uploads soon.
    ///
    /// - Parameter key: The key.
    public func removeObject(forKey key: String) {
        do {
            try set(Value?.none, forKey: key)
        } catch {
            configuration.logger.error("cannot remove '\(key)' locally: \(error)")
        }
    }

    // MARK: Syncing

    /// Asks for a prompt sync (upload local changes, fetch others'); returns at once and guarantees nothing.
    ///
    /// - Returns: `true` (kept for `NSUbiquitousKeyValueStore` parity).
    @discardableResult
    public func synchronize() -> Bool {
        let enqueue = state.withLock { state -> Bool in
            guard !state.syncQueued else { return false }
            state.syncQueued = true
            return true
        }
        if enqueue { requests.yield(SyncRequest(waiter: nil)) }
        return true
    }

    /// Syncs now and waits for the result (for tools and tests; apps call ``synchronize()``).
    ///
    /// A change the server refuses for good is not an error of the sync (the other keys synced): it is
    /// in the result's ``SynchronizationResult/refusedKeys``, with the server's reason, and the key has
    /// the server's value again. A tool that set a key checks it there.
    ///
    /// - Returns: Which local changes were uploaded and which were refused.
    /// - Throws: The sync's error (``StratusError`` from the network or server).
    @discardableResult
    public func synchronizeNow() async throws -> SynchronizationResult {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<SynchronizationResult, any Error>) in
            if case .terminated = requests.yield(SyncRequest(waiter: continuation)) {
                continuation.resume(throwing: CancellationError())
            }
        }
    }

    /// Announcements of values changed by other devices, the server or an account change (a new sequence per access).
    public var didChangeExternally: AsyncStream<ExternalChange> { broadcaster.stream() }

    /// Whether local changes are waiting to upload.
    public var hasPendingChanges: Bool { state.withLock { !$0.pending.isEmpty } }

    private func startTasks(requests stream: AsyncStream<SyncRequest>) {
        var started: [Task<Void, Never>] = []
        started.append(
            Task { [weak self] in
                for await request in stream {
                    guard let self else { return }
                    await self.runSync(request)
                }
            })
        if configuration.observesPushes {
            let notifications = container.notifications(configuration: configuration.notifications)
            let logger = configuration.logger
            started.append(
                Task { [weak self] in
                    do {
                        for try await notification in notifications
                        where notification.zoneID?.zoneName == Self.zoneID.zoneName || notification.isResync {
                            self?.synchronize()
                        }
                    } catch {
                        logger.info("key-value store stops listening to pushes: \(error)")
                    }
                })
        }
        if let period = configuration.pollInterval {
            started.append(
                Task { [weak self] in
                    while !Task.isCancelled {
                        try? await Task.sleep(for: period)
                        self?.synchronize()
                    }
                })
        }
        tasks.withLock { $0 = started }
    }
}
