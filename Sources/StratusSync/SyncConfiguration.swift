public import Foundation
public import StratusClient
public import StratusLogging
public import StratusWire

/// How a ``SyncController`` is set up.
public struct SyncConfiguration: Sendable {
    /// The container to sync with.
    public var container: Container
    /// The database: `.private` (a custom zone with a change feed) or `.public` (the default zone,
    /// queried by modification time, with Device and DeleteQueue records; see Documentation/0009).
    public var databaseScope: DatabaseScope
    /// The entity types to sync; records of other types are ignored.
    public var entityTypes: [any SyncableEntity.Type]
    /// The default `syncIdKey` for types that declare none.
    public var syncIdKey: String?
    /// The default `changeDateKey` for types that declare none.
    public var changeDateKey: String?
    /// Sync IDs (record names) of objects sync leaves alone, as in ZenCloudKit: a full sync does not
    /// upload them, and a fetch neither creates, updates nor deletes them; `cloud.save()` of one
    /// throws ``SyncError/Code/ignoredEntity``.
    public var ignoreKeys: Set<String>
    /// Local properties never synced, whatever the mappings say (fields, not objects: see ``ignoreKeys``).
    public var excludedKeys: Set<String>
    /// This device's ID, stable across launches.
    public var deviceID: String
    /// The SQLite file holding the bookkeeping (change token, last-synced versions, outbox).
    public var bookkeepingPath: String
    /// The custom zone the app's records live in.
    public var zoneName: String
    /// How conflicts are resolved; field-level three-way merge by default.
    public var conflictPolicy: ConflictPolicy
    /// The device clock, used for local edit times (corrected by the skew observed against the server).
    public var now: @Sendable () -> Date
    /// Where the controller logs: by default through ``LoggingSystem`` (standard error unless the
    /// app bootstrapped another handler).
    public var logger: Logger
    /// Whether the sync journal (every upload, conflict and fetch, at `debug`) is on: `true` by
    /// default, as in ZenCloudKit; ``SyncController/setDebugLogging(_:)`` switches it at run time.
    public var debugLogging = true
    /// After a sync fails for want of a connection, retry after this long (doubling up to five
    /// minutes) until it succeeds, so reconnection replays the outbox; `nil` leaves it to the app.
    public var reconnectInterval: Duration? = .seconds(10)
    /// Public database: a device that has not checked in for this long is retired (no more
    /// DeleteQueue entries are written for it); when it comes back it does a full resync.
    public var deviceRetirement: Duration = .seconds(30 * 24 * 3600)
    /// Public database: each fetch re-reads records modified this long before the last one seen,
    /// so writes committed out of order or with equal timestamps are never missed (change tags dedup them).
    public var publicQueryOverlap: Duration = .seconds(60)
    /// `Data` fields larger than this many bytes travel as assets (uploaded apart, downloaded on
    /// demand with ``SyncController/downloadAsset(for:key:)``); `nil` keeps every `Data` inline.
    public var assetThreshold: Int? = 64 * 1024
    /// A fetch of the private zone's change feed hands the delegate its changes in parts of about
    /// this many records (whole pages of up to 200), each a ``SyncDelegate`` delivery with its own
    /// ``FinishSync`` that commits the token to the part's end, and fetches the next part while the
    /// delegate stores the one before; `nil` delivers a fetch in one part. An initial sync of
    /// 100,000 records is 50 parts.
    public var fetchBatchSize: Int? = 2_000
    /// How the controller waits between reconnection attempts (injected by tests).
    public var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - container: The container.
    ///   - databaseScope: The database (`.private`, or `.public` with Device and DeleteQueue records).
    ///   - entityTypes: The entity types to sync.
    ///   - syncIdKey: The default `syncIdKey`.
    ///   - changeDateKey: The default `changeDateKey`.
    ///   - ignoreKeys: Sync IDs of objects sync leaves alone.
    ///   - excludedKeys: Local properties never synced.
    ///   - deviceID: This device's ID.
    ///   - bookkeepingPath: The bookkeeping SQLite file.
    ///   - zoneName: The custom zone; `"StratusSync"` by default.
    ///   - conflictPolicy: The conflict policy.
    ///   - now: The device clock.
    ///   - logger: The logger.
    public init(
        container: Container, databaseScope: DatabaseScope = .private, entityTypes: [any SyncableEntity.Type],
        syncIdKey: String? = nil, changeDateKey: String? = nil, ignoreKeys: Set<String> = [], excludedKeys: Set<String> = [],
        deviceID: String, bookkeepingPath: String, zoneName: String = "StratusSync", conflictPolicy: ConflictPolicy = .threeWayMerge,
        now: @escaping @Sendable () -> Date = { Date() }, logger: Logger = Logger(label: "stratus.sync")
    ) {
        self.container = container
        self.databaseScope = databaseScope
        self.entityTypes = entityTypes
        self.syncIdKey = syncIdKey
        self.changeDateKey = changeDateKey
        self.ignoreKeys = ignoreKeys
        self.excludedKeys = excludedKeys
        self.deviceID = deviceID
        self.bookkeepingPath = bookkeepingPath
        self.zoneName = zoneName
        self.conflictPolicy = conflictPolicy
        self.now = now
        self.logger = logger
    }
}
