import Foundation
import StratusClient
import StratusServer
import StratusStoreSync
import StratusSync
import StratusTesting
import StratusWire
import Synchronization

/// One seed's world: the simulated clock, the in-process server (real service, real SQLite files)
/// and what the devices share — how they reach it and how the simulator reads it.
final class SimWorld: Sendable {
    static let zoneName = "Sim"
    let clock: ManualClock
    let server: InProcessCloudKitServer
    let journal: SimJournal
    private let down = Mutex(false)

    private init(clock: ManualClock, server: InProcessCloudKitServer, journal: SimJournal) {
        self.clock = clock
        self.server = server
        self.journal = journal
    }

    /// A new world whose server keeps its files in `directory` (the seed's scratch directory, in
    /// memory where the system has one: fsyncs cost nothing there, and the server's restart from
    /// its files is the same).
    static func open(journal: SimJournal, directory: URL) async throws -> SimWorld {
        let clock = ManualClock(start: 1_750_000_000_000, step: 1)
        let server = try await InProcessCloudKitServer.open(in: directory, now: clock.reader)
        return SimWorld(clock: clock, server: server, journal: journal)
    }

    /// Whether the server is down (killed, not yet restarted): connections are refused.
    var isDown: Bool {
        get { down.withLock { $0 } }
        set { down.withLock { $0 = newValue } }
    }

    /// A device's network to this world's server.
    func network(name: String, seed: UInt64) -> SimNetwork {
        SimNetwork(name: name, seed: seed, server: server, journal: journal, serverDown: { [weak self] in self?.isDown ?? true })
    }

    /// Kills the server and starts it again from its files, with `limits` (the default: none).
    func restartServer(_ limits: QuotaLimits = .unlimited) async throws {
        try await server.restart { $0.quotas.defaults = limits }
    }

    /// Stops the server, copies its database files to `backup` (replacing an earlier copy), starts it again.
    func backUp(to backup: URL) async throws {
        try await server.restart(whileStopped: { path in
            try? FileManager.default.removeItem(at: backup)
            try FileManager.default.createDirectory(at: backup, withIntermediateDirectories: true)
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                let name = URL(fileURLWithPath: path + suffix).lastPathComponent
                try FileManager.default.copyItem(atPath: path + suffix, toPath: backup.appendingPathComponent(name).path)
            }
        })
    }

    /// Stops the server, puts the database files of `backup` in place of its own, starts it again:
    /// the database restored from an earlier state (its sync tokens from the future are refused).
    func restore(from backup: URL) async throws {
        try await server.restart(whileStopped: { path in
            for suffix in ["", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
                let name = URL(fileURLWithPath: path + suffix).lastPathComponent
                let saved = backup.appendingPathComponent(name).path
                if FileManager.default.fileExists(atPath: saved) { try FileManager.default.copyItem(atPath: saved, toPath: path + suffix) }
            }
        })
    }

    /// The container a device's sync talks through: no retries but the SDK's own (its sleeps return
    /// at once), no reconnection timer (the scheduler decides when a device tries again).
    static func container(network: SimNetwork) -> Container {
        var client = ClientConfiguration()
        client.requestTimeout = TestTimeScale.scaled(.seconds(20))  // wall-clock: longer under sanitizers
        client.sleep = { _ in }
        client.retryPolicy.maximumAttempts = 2
        // NB: a constant URL; the in-process network never resolves it.
        let url = URL(string: "http://127.0.0.1:1").unsafelyUnwrapped
        return Container(
            identifier: TestCloudKitServer.container, environment: .development, serverURL: url, authentication: .none,
            configuration: client, transport: network)
    }

    static func syncConfiguration(
        name: String, network: SimNetwork, directory: URL, clock: @escaping @Sendable () -> Date, zoneName: String,
        entityTypes: [any SyncableEntity.Type] = []
    ) -> SyncConfiguration {
        var configuration = SyncConfiguration(
            container: container(network: network), entityTypes: entityTypes, deviceID: "device-\(name)",
            bookkeepingPath: directory.appendingPathComponent("\(name).sync.sqlite").path, zoneName: zoneName, conflictPolicy: .threeWayMerge,
            now: clock, logger: network.journal.logger(name))
        configuration.reconnectInterval = nil
        return configuration
    }

    /// What the server holds in the zone: notes (a reference to a missing folder reads as none,
    /// and is listed in `dangling`) and folder names, duplicates included.
    func serverState() async throws -> (notes: [SimNote], folders: [String], dangling: [String]) {
        let reader = network(name: "reader", seed: 0)
        let database = Self.container(network: reader).privateCloudDatabase
        let records: [StratusClient.Record]
        do {
            records = try await database.allRecordZoneChanges(inZoneWith: ZoneID(zoneName: Self.zoneName), since: nil).modifications()
        } catch let error as StratusError where error.code == .zoneNotFound {
            return ([], [], [])
        }
        var folders: [String: String] = [:]
        for record in records where record.recordType == "Folder" { folders[record.recordID.recordName] = record["name"] ?? "?" }
        var notes: [SimNote] = []
        var dangling: [String] = []
        for record in records where record.recordType == "Note" {
            let title: String = record["title"] ?? "?"
            var folder: String?
            if case .reference(let reference)? = record.fields["folder"] {
                folder = folders[reference.recordName]
                if folder == nil { dangling.append(title) }
            }
            let rank: Int64? = record["rank"]
            notes.append(SimNote(title: title, values: NoteValues(body: record["text"], rank: rank.map(Int.init), folder: folder)))
        }
        return (notes.sorted(), folders.values.sorted(), dangling.sorted())
    }

    /// Deletes the zone and makes it again, as another client (or an operator) would.
    func resetZone() async throws {
        let database = Self.container(network: network(name: "operator", seed: 0)).privateCloudDatabase
        let zoneID = ZoneID(zoneName: Self.zoneName)
        _ = try await database.deleteRecordZone(withID: zoneID)
        _ = try await database.save(RecordZone(zoneID: zoneID))
    }

    func stop() async { await server.stop() }
}
