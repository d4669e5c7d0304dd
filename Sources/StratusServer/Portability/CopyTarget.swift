import Foundation
public import StratusWire

/// A record copied from another CloudKit Web Services endpoint, as `stratus import --from` hands it over.
public struct CopiedRecord: Sendable {
    /// The record name.
    public var recordName: String
    /// The record type.
    public var recordType: String
    /// The field values; an asset carries the downloaded bytes as ``Asset/localFileURL``.
    public var fields: [String: FieldValue]
    /// The record's parent, if any.
    public var parent: Reference?
    /// When and by whom it was created.
    public var created: StoredRecord.Stamp
    /// When and by whom it was last modified.
    public var modified: StoredRecord.Stamp

    /// Creates a copied record.
    public init(
        recordName: String, recordType: String, fields: [String: FieldValue], parent: Reference?, created: StoredRecord.Stamp,
        modified: StoredRecord.Stamp
    ) {
        self.recordName = recordName
        self.recordType = recordType
        self.fields = fields
        self.parent = parent
        self.created = created
        self.modified = modified
    }
}

/// Writes what `stratus import --from` copies from another endpoint into a store: one page of
/// one zone's changes per transaction (Documentation/0020-export-format.md, "Copying from a server").
///
/// A page is applied as a set of upserts and deletions keyed by record name, so applying the
/// same page twice (a copy killed after the commit but before it noted its progress) changes
/// nothing more. Copied records get change tags of this server: the source's tags name the
/// source's history, and reusing them could hand a client's stale tag a match.
///
/// ```swift
/// import StratusWire
///
/// func copy(_ records: [CopiedRecord], into store: any RecordStore, assetsDirectory: URL) async throws {
///     let target = CopyTarget(store: store, assets: try AssetFileStore(directory: assetsDirectory))
///     try await target.prepare(container: "iCloud.com.example.Notes")
///     let database = DatabaseKey(container: "iCloud.com.example.Notes", environment: .development, scope: .public, owner: DatabaseKey.publicOwner)
///     try await target.apply(saved: records, deleted: [], zoneName: ZoneID.defaultZoneName, in: database)
/// }
/// ```
public struct CopyTarget: Sendable {
    let store: any RecordStore
    let assets: any AssetBlobStore

    /// Creates a target.
    ///
    /// - Parameters:
    ///   - store: Where the records go.
    ///   - assets: Where asset bytes go.
    public init(store: any RecordStore, assets: any AssetBlobStore) {
        self.store = store
        self.assets = assets
    }

    /// Creates the container when this store does not have it yet.
    ///
    /// - Parameter container: The container identifier.
    /// - Throws: ``ExportError`` for an invalid identifier, or a store error.
    public func prepare(container: String) async throws {
        if let problem = ContainerIdentifier.problem(with: container) { throw ExportError(problem) }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        _ = try await store.write { tx in try tx.createContainer(container, createdAt: now) }
    }

    /// Applies one page of a zone's changes in one transaction, creating the zone if needed.
    ///
    /// - Parameters:
    ///   - saved: Records created or changed at the source, in their latest state.
    ///   - deleted: Names of records deleted at the source.
    ///   - zoneName: The zone.
    ///   - database: The database (public, or a user's private one).
    /// - Throws: ``ExportError`` naming a record the store's rules refuse (nothing of the page is
    ///   written then), or a store error.
    public func apply(saved: [CopiedRecord], deleted: [String], zoneName: String, in database: DatabaseKey) async throws {
        let assets = self.assets
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        // The bytes are content-addressed: installed before the transaction, recorded inside it.
        var installed: [String: Int64] = [:]
        var pages = saved
        for index in pages.indices {
            pages[index].fields = try Self.installAssets(pages[index].fields, record: pages[index].recordName, assets, &installed)
        }
        let records = pages
        let sizes = installed
        try await store.write { tx in
            try CopyPage(tx: tx, database: database, now: now).apply(records, deleted: deleted, zoneName: zoneName, assets: sizes)
        }
    }

    /// Installs the downloaded bytes of every asset field and puts the stored form in their place.
    private static func installAssets(
        _ fields: [String: FieldValue], record: String, _ assets: any AssetBlobStore, _ installed: inout [String: Int64]
    ) throws -> [String: FieldValue] {
        var result = fields
        func stored(_ asset: Asset, _ field: String) throws -> Asset {
            guard let file = asset.localFileURL else {
                throw ExportError("the asset in field '\(field)' of record '\(record)' was not downloaded")
            }
            let bytes = try Data(contentsOf: file, options: .alwaysMapped)
            let key = AssetChecksum.key(of: bytes)
            if !assets.contains(key: key) {
                let upload = assets.uploadDirectory.appendingPathComponent("copy-\(UUID().uuidString)")
                try FileManager.default.copyItem(at: file, to: upload)
                try assets.install(try assets.stage(file: upload), key: key)
            }
            installed[key] = Int64(bytes.count)
            return Asset(fileChecksum: AssetChecksum.fileChecksum(forKey: key), size: Int64(bytes.count))
        }
        for (name, value) in fields {
            switch value {
            case .asset(let asset): result[name] = .asset(try stored(asset, name))
            case .assetList(let list): result[name] = .assetList(try list.map { try stored($0, name) })
            default: continue
            }
        }
        return result
    }
}

/// One page of a copy, inside one write transaction.
private struct CopyPage {
    let tx: any RecordStoreWriter
    let database: DatabaseKey
    let now: Int64

    func apply(_ records: [CopiedRecord], deleted: [String], zoneName: String, assets: [String: Int64]) throws {
        try ImportRules.check(database, zoneName: zoneName, at: "zone '\(zoneName)'")
        let zone = try tx.zone(named: zoneName, in: database) ?? tx.createZone(named: zoneName, in: database, createdAt: now)
        for (key, size) in assets.sorted(by: { $0.key < $1.key }) { try tx.putAsset(key: key, size: size, now: now) }
        var admission = SchemaAdmission(
            schema: try tx.schema(container: database.container, environment: database.environment), environment: database.environment)
        var delta = StorageUsage.zero
        for copied in records {
            let place = "record '\(copied.recordName.prefix(80))'"
            guard ImportRules.isPlainName(copied.created.userRecordName), ImportRules.isPlainName(copied.modified.userRecordName),
                copied.created.deviceID.utf8.count <= 255, copied.modified.deviceID.utf8.count <= 255
            else { throw ExportError("\(place): its authors must be 1 to 255 printable bytes") }
            do {
                try RecordModifier.validate(recordName: copied.recordName)
                try RecordModifier.validate(recordType: copied.recordType)
                try admission.admit(recordType: copied.recordType, fields: copied.fields)
            } catch {
                throw ExportError("\(place): \(error.reason)")
            }
            var fields = copied.fields
            if let parent = copied.parent { fields[RecordPresenter.parentKey] = .reference(Reference(recordName: parent.recordName)) }
            // References stay in their zone: the source's zone IDs name its owner, not this one.
            for (name, value) in fields {
                switch value {
                case .reference(let reference): fields[name] = .reference(Reference(recordName: reference.recordName, action: reference.action))
                case .referenceList(let list): fields[name] = .referenceList(list.map { Reference(recordName: $0.recordName, action: $0.action) })
                default: continue
                }
            }
            let existing = try tx.record(named: copied.recordName, inZone: zone.rowID).flatMap { $0.isDeleted ? nil : $0 }
            let sequence = try tx.nextChangeSequence(inZone: zone.rowID)
            let record = StoredRecord(
                zoneRowID: zone.rowID, recordName: copied.recordName, recordType: copied.recordType, changeTag: ChangeTags.tag(for: sequence, at: now),
                fields: fields, created: copied.created, modified: copied.modified, changeSequence: sequence)
            try tx.putRecord(record, references: ImportRules.edges(of: record))
            try tx.replaceAssetReferences(zoneRowID: zone.rowID, recordName: copied.recordName, keys: AssetAdmission.references(of: record), now: now)
            delta = delta + RecordUsage.of(record) - RecordUsage.of(existing)
        }
        for name in deleted {
            guard let existing = try tx.record(named: name, inZone: zone.rowID), !existing.isDeleted else { continue }
            let sequence = try tx.nextChangeSequence(inZone: zone.rowID)
            try tx.deleteRecord(
                named: name, inZone: zone.rowID,
                modified: StoredRecord.Stamp(timestamp: now, userRecordName: existing.modified.userRecordName, deviceID: "stratus-import"), sequence: sequence)
            try tx.replaceAssetReferences(zoneRowID: zone.rowID, recordName: name, keys: [], now: now)
            delta = delta - RecordUsage.of(existing)
        }
        if admission.changed { try tx.saveSchema(admission.schema, container: database.container, environment: database.environment) }
        if delta != .zero { try tx.addUsage(delta, zoneRowID: zone.rowID) }
    }
}
