import Foundation
import StratusCrypto
import StratusWire

/// The container's data files of an export, written from inside one read snapshot.
///
/// Confined to the store's read closure that creates it.
final class DataExport {
    struct Written: Sendable {
        var files: [ExportManifest.File]
        var counts: ExportManifest.Counts
    }

    private let container: String
    private let tx: any RecordStoreReader
    private let directory: URL
    private let assets: any AssetBlobStore
    private var counts = ExportManifest.Counts()
    /// Every content key a record references.
    private var assetKeys: Set<String> = []

    /// Records read per round trip.
    static let pageSize = 500

    init(container: String, tx: any RecordStoreReader, directory: URL, assets: any AssetBlobStore) throws {
        guard try tx.containerExists(container) else { throw ExportError("container '\(container)' does not exist") }
        self.container = container
        self.tx = tx
        self.directory = directory
        self.assets = assets
    }

    func run() throws -> Written {
        var files: [ExportManifest.File] = []
        let schemas = try ExportFileWriter(ExportFormat.schemaFile, in: directory)
        let both = Exported.Schemas(
            development: try tx.schema(container: container, environment: .development),
            production: try tx.schema(container: container, environment: .production))
        schemas.append(try WireCoding.encode(both))
        files.append(try schemas.finish())

        let zones = try ExportFileWriter(ExportFormat.zonesFile, in: directory)
        let records = try ExportFileWriter(ExportFormat.recordsFile, in: directory)
        let shares = try ExportFileWriter(ExportFormat.sharesFile, in: directory)
        let guids = try ExportFileWriter(ExportFormat.shortGUIDsFile, in: directory)
        let subscriptions = try ExportFileWriter(ExportFormat.subscriptionsFile, in: directory)
        // NB: sorted here, not by the store: PostgreSQL's ORDER BY follows the database's collation,
        // and an export must be the same bytes whichever back end it came from.
        for database in try tx.databases(of: container).sorted(by: Self.order) {
            for zone in try tx.zones(in: database).sorted(by: { $0.zoneName < $1.zoneName }) {
                let id = counts.zones + 1
                try zones.writeLine(
                    Exported.Zone(
                        id: id, environment: database.environment, scope: database.scope, owner: database.owner, zoneName: zone.zoneName,
                        createdAt: zone.createdAt, changeSequence: zone.changeSequence))
                counts.zones = id
                try exportRecords(of: zone, id: id, records: records, shares: shares)
                for (name, guid) in try tx.shortGUIDs(inZone: zone.rowID).sorted(by: { $0.key < $1.key }) {
                    try guids.writeLine(Exported.ShortGUID(zone: id, recordName: name, shortGUID: guid))
                }
            }
            let stored = try tx.subscriptions(in: database).sorted {
                ($0.subscriber, $0.subscription.subscriptionID) < ($1.subscriber, $1.subscription.subscriptionID)
            }
            for subscription in stored {
                try subscriptions.writeLine(
                    Exported.SubscriptionEntry(
                        environment: database.environment, scope: database.scope, owner: database.owner, subscriber: subscription.subscriber,
                        createdAt: subscription.createdAt, subscription: subscription.subscription))
            }
        }
        counts.records = records.count
        counts.shares = shares.count
        counts.shortGUIDs = guids.count
        counts.subscriptions = subscriptions.count
        files += [try zones.finish(), try records.finish(), try shares.finish(), try guids.finish(), try subscriptions.finish()]
        files += try exportAssets()
        return Written(files: files, counts: counts)
    }

    private static func order(_ a: DatabaseKey, _ b: DatabaseKey) -> Bool {
        (a.environment.rawValue, a.scope.rawValue, a.owner) < (b.environment.rawValue, b.scope.rawValue, b.owner)
    }

    /// The zone's live records in change order, and the shares among them.
    private func exportRecords(of zone: ZoneRow, id: Int, records: ExportFileWriter, shares: ExportFileWriter) throws {
        var after: Int64 = 0
        while true {
            let page = try tx.recordChanges(inZone: zone.rowID, after: after, limit: Self.pageSize, recordTypes: nil)
            for record in page where !record.isDeleted {
                try records.writeLine(
                    Exported.Record(
                        zone: id, recordName: record.recordName, recordType: record.recordType, changeTag: record.changeTag,
                        changeSequence: record.changeSequence, created: Exported.Stamp(record.created), modified: Exported.Stamp(record.modified),
                        fields: record.fields))
                for reference in AssetAdmission.references(of: record) { assetKeys.insert(reference.key) }
                if record.recordType == Record.shareRecordType, let share = try tx.share(named: record.recordName, inZone: zone.rowID) {
                    try shares.writeLine(Exported.Share(share, zone: id))
                }
            }
            guard let last = page.last, page.count == Self.pageSize else { return }
            after = last.changeSequence
        }
    }

    /// Copies every referenced content, checking that its bytes still hash to its key.
    private func exportAssets() throws -> [ExportManifest.File] {
        var files: [ExportManifest.File] = []
        for key in assetKeys.sorted() {
            guard assets.contains(key: key) else {
                throw ExportError("the asset \(key), which records of '\(container)' reference, is missing from the asset store")
            }
            let bytes = try assets.read(key: key)
            guard AssetChecksum.key(of: bytes) == key else {
                throw ExportError("the asset \(key) in the asset store does not hash to its key: the file is damaged")
            }
            let writer = try ExportFileWriter(ExportFormat.assetsFolder + "/" + key, in: directory)
            writer.append(bytes)
            files.append(try writer.finish())
            counts.assets += 1
            counts.assetBytes += Int64(bytes.count)
        }
        return files
    }
}

extension Exported.Stamp {
    init(_ stamp: StoredRecord.Stamp) {
        self.init(timestamp: stamp.timestamp, userRecordName: stamp.userRecordName, deviceID: stamp.deviceID)
    }

    var stored: StoredRecord.Stamp { StoredRecord.Stamp(timestamp: timestamp, userRecordName: userRecordName, deviceID: deviceID) }
}

extension Exported.Share {
    init(_ share: StoredShare, zone: Int) {
        self.init(
            zone: zone, shareName: share.shareName, rootRecordName: share.rootRecordName, shortGUID: share.shortGUID,
            publicPermission: share.publicPermission,
            participants: share.participants.map {
                Exported.Participant(
                    participantID: $0.participantID, userRecordName: $0.userRecordName, emailAddress: $0.emailAddress,
                    permission: $0.permission, type: $0.type, acceptanceStatus: $0.acceptanceStatus)
            })
    }
}
