import Foundation
import StratusWire

/// Loads the container's data files of an export inside one write transaction.
///
/// Confined to the store's write closure that creates it. Every value is checked as it is read
/// (names, types, sequences, asset and zone links); a problem throws, and the transaction rolls
/// back whole. The files' hashes are checked before the closure returns, so nothing commits from
/// a file that differs from its manifest.
final class DataImport {
    struct Loaded: Sendable {
        var zones = 0
        var records = 0
        var shares = 0
        var subscriptions = 0
    }

    /// A zone made by this import, and how far its sequence must reach.
    private struct ZoneState {
        var row: ZoneRow
        var lastSequence: Int64 = 0
        var finalSequence: Int64
        var usage = StorageUsage.zero
    }

    private let export: ExportDirectory
    private let tx: any RecordStoreWriter
    private let assets: any AssetBlobStore
    private let now: Int64
    private var zones: [Int: ZoneState] = [:]
    private var loaded = Loaded()
    private var container: String { export.manifest.container }

    init(_ export: ExportDirectory, tx: any RecordStoreWriter, assets: any AssetBlobStore, now: Int64) {
        self.export = export
        self.tx = tx
        self.assets = assets
        self.now = now
    }

    func run() throws -> Loaded {
        guard !(try tx.containerExists(container)) else {
            throw ExportError("container '\(container)' already exists here; import into a store without it (nothing was imported)")
        }
        if !(try tx.databases(of: container)).isEmpty {
            throw ExportError("this store already holds databases of '\(container)' (an earlier import that failed?); nothing was imported")
        }
        _ = try tx.createContainer(container, createdAt: now)
        try loadSchemas()
        try installAssets()
        try loadZones()
        try loadRecords()
        try ShareImport(export: export, tx: tx, zones: zones.mapValues(\.row)).run(&loaded)
        try loadSubscriptions()
        return loaded
    }

    private func loadSchemas() throws {
        let reader = try export.reader(ExportFormat.schemaFile)
        var body = Data()
        while let piece = try reader.nextChunk() {
            body.append(piece)
            guard body.count <= ExportFormat.maximumLineSize else { throw ExportError("\(ExportFormat.schemaFile) is too large") }
        }
        try reader.finish()
        let schemas: Exported.Schemas
        do {
            schemas = try WireCoding.decode(Exported.Schemas.self, from: body)
            try SchemaDeployment.validate(schemas.development)
            try SchemaDeployment.validate(schemas.production)
        } catch {
            throw ExportError("\(ExportFormat.schemaFile): \(error)")
        }
        try tx.saveSchema(schemas.development, container: container, environment: .development)
        try tx.saveSchema(schemas.production, container: container, environment: .production)
    }

    /// Copies each asset into the asset store, checking its bytes, and records the content.
    private func installAssets() throws {
        for (key, entry) in export.assets.sorted(by: { $0.key < $1.key }) {
            if !assets.contains(key: key) {
                let upload = assets.uploadDirectory.appendingPathComponent("import-\(UUID().uuidString)")
                try copy(entry, to: upload)
                try assets.install(try assets.stage(file: upload), key: key)
            } else {
                try export.reader(entry.name).finish()
            }
            try tx.putAsset(key: key, size: entry.size, now: now)
        }
    }

    /// Streams a listed file to `target`, checking it against the manifest on the way.
    private func copy(_ entry: ExportManifest.File, to target: URL) throws {
        let reader = try export.reader(entry.name)
        guard FileManager.default.createFile(atPath: target.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw ExportError("cannot write \(target.path)")
        }
        do {
            let writer = try FileHandle(forWritingTo: target)
            defer { try? writer.close() }
            while let piece = try reader.nextChunk() { try writer.write(contentsOf: piece) }
            try reader.finish()
        } catch {
            try? FileManager.default.removeItem(at: target)
            throw error
        }
    }

    private func loadZones() throws {
        let reader = try export.reader(ExportFormat.zonesFile)
        var names: Set<String> = []
        while let zone = try reader.next(Exported.Zone.self) {
            let place = "\(reader.entry.name) line \(reader.lineNumber)"
            let database = DatabaseKey(container: container, environment: zone.environment, scope: zone.scope, owner: zone.owner)
            try ImportRules.check(database, zoneName: zone.zoneName, at: place)
            guard zones[zone.id] == nil, names.insert("\(database)/\(zone.zoneName)").inserted, zone.changeSequence >= 0 else {
                throw ExportError("\(place): zone \(zone.id) ('\(zone.zoneName)') appears twice, or has a negative sequence")
            }
            let row = try tx.createZone(named: zone.zoneName, in: database, createdAt: zone.createdAt)
            zones[zone.id] = ZoneState(row: row, finalSequence: zone.changeSequence)
        }
        try reader.finish()
        loaded.zones = zones.count
    }

    private func loadRecords() throws {
        let reader = try export.reader(ExportFormat.recordsFile)
        let assetSizes = export.assets.mapValues(\.size)
        while let line = try reader.next(Exported.Record.self) {
            let place = "\(reader.entry.name) line \(reader.lineNumber)"
            guard var zone = zones[line.zone] else {
                throw ExportError("\(place): record '\(line.recordName.prefix(80))' names zone \(line.zone), which zones.jsonl does not list")
            }
            guard line.changeSequence > zone.lastSequence, line.changeSequence <= zone.finalSequence else {
                throw ExportError(
                    "\(place): record '\(line.recordName.prefix(80))' has change sequence \(line.changeSequence); records of a zone come in increasing change order, up to the zone's \(zone.finalSequence)"
                )
            }
            let fields = try ImportRules.fields(line, zone: zone.row, assetSizes: assetSizes, at: place)
            guard try tx.record(named: line.recordName, inZone: zone.row.rowID) == nil else {
                throw ExportError("\(place): record '\(line.recordName.prefix(80))' appears twice in its zone")
            }
            // NB: the sequences the source handed out to versions the export collapsed are skipped,
            // so the zone's feed goes on from where the source's stood and no number is handed out twice.
            while try tx.nextChangeSequence(inZone: zone.row.rowID) < line.changeSequence {}
            let record = StoredRecord(
                zoneRowID: zone.row.rowID, recordName: line.recordName, recordType: line.recordType, changeTag: line.changeTag, fields: fields,
                created: line.created.stored, modified: line.modified.stored, changeSequence: line.changeSequence)
            try tx.putRecord(record, references: ImportRules.edges(of: record))
            let keys = AssetAdmission.references(of: record)
            if !keys.isEmpty { try tx.replaceAssetReferences(zoneRowID: zone.row.rowID, recordName: line.recordName, keys: keys, now: now) }
            zone.lastSequence = line.changeSequence
            zone.usage = zone.usage + RecordUsage.of(record)
            zones[line.zone] = zone
            loaded.records += 1
        }
        try reader.finish()
        for zone in zones.values.sorted(by: { $0.row.rowID < $1.row.rowID }) {
            var reached = zone.lastSequence
            while reached < zone.finalSequence { reached = try tx.nextChangeSequence(inZone: zone.row.rowID) }
            if zone.usage != .zero { try tx.addUsage(zone.usage, zoneRowID: zone.row.rowID) }
        }
    }

    private func loadSubscriptions() throws {
        let reader = try export.reader(ExportFormat.subscriptionsFile)
        while let line = try reader.next(Exported.SubscriptionEntry.self) {
            let place = "\(reader.entry.name) line \(reader.lineNumber)"
            let database = DatabaseKey(container: container, environment: line.environment, scope: line.scope, owner: line.owner)
            try ImportRules.check(database, zoneName: nil, at: place)
            guard ImportRules.isPlainName(line.subscriber), ImportRules.isPlainName(line.subscription.subscriptionID) else {
                throw ExportError("\(place): a subscription needs a subscriber and an ID of 1 to 255 printable bytes")
            }
            try tx.putSubscription(
                StoredSubscription(database: database, subscriber: line.subscriber, subscription: line.subscription, createdAt: line.createdAt))
            loaded.subscriptions += 1
        }
        try reader.finish()
    }
}
