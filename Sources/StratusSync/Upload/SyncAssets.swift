import Foundation
import StratusClient
import StratusLogging
import StratusWire
import Synchronization

/// Binary fields over ``SyncConfiguration/assetThreshold`` travel as assets and are downloaded on
/// demand: the bytes staged for upload in temporary files, what this device holds of each asset,
/// and the downloads.
final class SyncAssets: Sendable {
    /// An asset being uploaded: the bytes' digest and the temporary file.
    private struct Staged {
        var digest: String
        var file: URL
    }

    private let bookkeeping: SyncBookkeeping
    /// The size above which a `Data` field goes as an asset (`nil`: never).
    private let threshold: Int?
    /// Assets being uploaded, by record name and asset field.
    private let staged = Mutex<[String: [String: Staged]]>([:])

    init(bookkeeping: SyncBookkeeping, threshold: Int?) {
        self.bookkeeping = bookkeeping
        self.threshold = threshold
    }

    // MARK: Download

    /// Downloads the asset behind an entity's property (``SyncController/downloadAsset(for:key:)``).
    func download(
        for entity: EntityRef, key: String, description: EntityDescription, remote: String, from database: Database, zoneID: ZoneID,
        logger: Logger
    ) async throws -> Data? {
        let (syncID, heldBytes) = try await entity.access { (description.syncID(of: $0), $0.value(forKey: key) as? Data) }
        guard let name = syncID, let base = try bookkeeping.base(name), let asset = AssetFields.asset(in: base.record.fields, remote: remote)
        else { return heldBytes }
        let field = AssetFields.assetKey(remote)
        if let checksum = asset.fileChecksum, try bookkeeping.heldAsset(name, field: field)?.checksum == checksum, let heldBytes {
            return heldBytes
        }
        let data: Data
        do {
            data = try await asset.data()
        } catch {
            // The download URL may have expired: ask the server for the record again.
            logger.debug("asset download of \(name).\(field) failed (\(error)); fetching the record again")
            let fresh = try await database.record(for: RecordID(recordName: name, zoneID: zoneID))
            guard let current = AssetFields.asset(in: fresh.fields, remote: remote), current.fileChecksum == asset.fileChecksum else {
                throw error
            }
            data = try await current.data()
        }
        try await entity.access { $0.setValue(data, forKey: key) }
        if let checksum = asset.fileChecksum {
            try bookkeeping.setHeldAsset(name, field: field, HeldAsset(checksum: checksum, digest: AssetFields.digest(data)))
        }
        logger.debug("downloaded asset \(name).\(field) (\(data.count) bytes)")
        return data
    }

    /// Whether `fields` hold an asset for `remote` whose bytes this device's entity does not hold.
    func isPending(recordName: String, remote: String, fields: [String: FieldValue]?) throws -> Bool {
        guard let asset = AssetFields.asset(in: fields, remote: remote) else { return false }
        return try bookkeeping.heldAsset(recordName, field: AssetFields.assetKey(remote))?.checksum != asset.fileChecksum
    }

    /// The mapped properties a record holds as assets, with whether the entity still waits for the
    /// bytes (``SyncController/downloadAsset(for:key:)``): such a property keeps bytes it already holds for this
    /// asset, and is otherwise `nil` until downloaded. Properties absent here are applied as usual.
    func fieldStates(of record: StratusClient.Record, description: EntityDescription) -> [String: Bool] {
        var states: [String: Bool] = [:]
        for (local, remote) in description.mapping where AssetFields.asset(in: record.fields, remote: remote) != nil {
            states[local] = (try? isPending(recordName: record.recordID.recordName, remote: remote, fields: record.fields)) ?? true
        }
        return states
    }

    // MARK: Upload

    /// The outbox entry with its large `Data` fields turned into assets: unchanged bytes reuse the
    /// last-synced asset, new bytes go to a temporary file the SDK uploads with the record. A `nil`
    /// property whose asset was never downloaded stays as the server has it. `base` is the record's
    /// last-synced version.
    func preparing(_ entry: OutboxEntry, base: BaseRecord?, description: EntityDescription?) throws -> OutboxEntry {
        guard entry.kind == .save, let description else { return entry }
        var prepared = entry
        let name = entry.recordName
        let baseFields = base?.record.fields
        for remote in Set(description.mapping.values) {
            let field = AssetFields.assetKey(remote)
            switch entry.fields[remote] {
            case .bytes(let data)? where data.count > (threshold ?? .max):
                prepared.fields[remote] = nil
                prepared.cleared.insert(remote)
                prepared.cleared.remove(field)
                let digest = AssetFields.digest(data)
                if let current = AssetFields.asset(in: baseFields, remote: remote),
                    let held = try bookkeeping.heldAsset(name, field: field), held.digest == digest, held.checksum == current.fileChecksum
                {
                    prepared.fields[field] = .asset(current)
                } else {
                    prepared.fields[field] = .asset(Asset(fileURL: try stageUpload(data, digest: digest, record: name, field: field)))
                }
            case .bytes?:
                prepared.cleared.insert(field)
            case nil where entry.cleared.contains(remote):
                if try !isPending(recordName: name, remote: remote, fields: baseFields) { prepared.cleared.insert(field) }
            default:
                continue
            }
        }
        return prepared
    }

    /// Writes bytes to a temporary file for the SDK's asset upload.
    private func stageUpload(_ data: Data, digest: String, record: String, field: String) throws -> URL {
        let previous = staged.withLock { $0[record]?[field] }
        if let previous { try? FileManager.default.removeItem(at: previous.file) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-sync-asset-" + UUID().uuidString)
        do {
            try data.write(to: file, options: .atomic)
        } catch {
            throw SyncError(.rejected, "cannot stage the asset of field '\(field)' of record '\(record)' in '\(file.path)'", underlying: error)
        }
        staged.withLock { $0[record, default: [:]][field] = Staged(digest: digest, file: file) }
        return file
    }

    /// After a save: remembers that the entity holds the bytes of the assets just uploaded.
    func noteSaved(_ saved: StratusClient.Record) throws {
        let name = saved.recordID.recordName
        guard let uploads = staged.withLock({ $0.removeValue(forKey: name) }) else { return }
        for (field, upload) in uploads {
            try? FileManager.default.removeItem(at: upload.file)
            if case .asset(let asset)? = saved.fields[field], let checksum = asset.fileChecksum {
                try bookkeeping.setHeldAsset(name, field: field, HeldAsset(checksum: checksum, digest: upload.digest))
            }
        }
    }
}
