public import Foundation
import StratusClient
import StratusLogging
import StratusWire

/// Binary fields over ``SyncConfiguration/assetThreshold`` travel as assets and are downloaded on demand.
extension SyncController {
    /// Downloads the asset behind an entity's `Data` property, puts the bytes in the property and
    /// returns them. A fetch leaves an asset-backed property `nil` until this is called (or keeps
    /// the bytes the entity already holds when they are the same).
    ///
    /// ```swift
    /// import Foundation
    /// import StratusSync
    ///
    /// func image(of photo: some SyncableEntity, sync: SyncController) async throws -> Data? {
    ///     if try await sync.isAssetPending(for: photo, key: "image") {
    ///         return try await sync.downloadAsset(for: photo, key: "image")  // fetched on demand, then kept
    ///     }
    ///     return photo.value(forKey: "image") as? Data
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - entity: The entity.
    ///   - key: The local property, one of the type's ``SyncableEntity/mapping`` keys.
    /// - Returns: The bytes; the property's current value when the field is inline or already
    ///   downloaded; `nil` when the record has none or the entity never synced.
    /// - Throws: ``SyncError`` for an unknown type or key; ``StratusError`` when the download fails.
    public nonisolated func downloadAsset(for entity: any SyncableEntity, key: String) async throws -> Data? {
        try await downloadAsset(for: EntityRef(entity), key: key)
    }

    private func downloadAsset(for entity: EntityRef, key: String) async throws -> Data? {
        let (description, remote) = try assetTarget(entity, key)
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

    /// Whether an entity's property is backed by an asset it does not hold yet (``downloadAsset(for:key:)`` fetches it).
    ///
    /// - Parameters:
    ///   - entity: The entity.
    ///   - key: The local property.
    /// - Returns: `true` when the bytes wait on the server.
    /// - Throws: ``SyncError`` for an unknown type or key.
    public nonisolated func isAssetPending(for entity: any SyncableEntity, key: String) async throws -> Bool {
        try await isAssetPending(for: EntityRef(entity), key: key)
    }

    private func isAssetPending(for entity: EntityRef, key: String) async throws -> Bool {
        let (description, remote) = try assetTarget(entity, key)
        guard let name = try await entity.access({ description.syncID(of: $0) }) else { return false }
        return try isAssetPending(recordName: name, remote: remote, fields: bookkeeping.base(name)?.record.fields)
    }

    private func assetTarget(_ entity: EntityRef, _ key: String) throws -> (EntityDescription, String) {
        let description = try description(of: entity.type)
        guard let remote = description.mapping[key] else {
            throw SyncError(.unknownKey, "'\(key)' is not a mapped property of entity type '\(description.type)'; add it to its mapping")
        }
        return (description, remote)
    }

    /// Whether `fields` hold an asset for `remote` whose bytes this device's entity does not hold.
    private func isAssetPending(recordName: String, remote: String, fields: [String: FieldValue]?) throws -> Bool {
        guard let asset = AssetFields.asset(in: fields, remote: remote) else { return false }
        return try bookkeeping.heldAsset(recordName, field: AssetFields.assetKey(remote))?.checksum != asset.fileChecksum
    }

    // MARK: Upload

    /// The outbox entry with its large `Data` fields turned into assets: unchanged bytes reuse the
    /// last-synced asset, new bytes go to a temporary file the SDK uploads with the record. A `nil`
    /// property whose asset was never downloaded stays as the server has it. `base` is the record's
    /// last-synced version.
    func preparingAssets(_ entry: OutboxEntry, base: BaseRecord?) throws -> OutboxEntry {
        guard entry.kind == .save, let description = descriptions[entry.recordType] else { return entry }
        var prepared = entry
        let name = entry.recordName
        let baseFields = base?.record.fields
        for remote in Set(description.mapping.values) {
            let field = AssetFields.assetKey(remote)
            switch entry.fields[remote] {
            case .bytes(let data)? where data.count > (configuration.assetThreshold ?? .max):
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
                if try !isAssetPending(recordName: name, remote: remote, fields: baseFields) { prepared.cleared.insert(field) }
            default:
                continue
            }
        }
        return prepared
    }

    /// Writes bytes to a temporary file for the SDK's asset upload.
    private func stageUpload(_ data: Data, digest: String, record: String, field: String) throws -> URL {
        if let previous = assetUploads[record]?[field] { try? FileManager.default.removeItem(at: previous.file) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-sync-asset-" + UUID().uuidString)
        do {
            try data.write(to: file, options: .atomic)
        } catch {
            throw SyncError(.rejected, "cannot stage the asset of field '\(field)' of record '\(record)' in '\(file.path)'", underlying: error)
        }
        assetUploads[record, default: [:]][field] = (digest, file)
        return file
    }

    /// After a save: remembers that the entity holds the bytes of the assets just uploaded.
    func noteSavedAssets(_ saved: StratusClient.Record) throws {
        let name = saved.recordID.recordName
        guard let uploads = assetUploads.removeValue(forKey: name) else { return }
        for (field, upload) in uploads {
            try? FileManager.default.removeItem(at: upload.file)
            if case .asset(let asset)? = saved.fields[field], let checksum = asset.fileChecksum {
                try bookkeeping.setHeldAsset(name, field: field, HeldAsset(checksum: checksum, digest: upload.digest))
            }
        }
    }

    // MARK: Fetch

    /// The mapped properties a record holds as assets, with whether the entity still waits for the
    /// bytes (``downloadAsset(for:key:)``): such a property keeps bytes it already holds for this
    /// asset, and is otherwise `nil` until downloaded. Properties absent here are applied as usual.
    func assetFieldStates(of record: StratusClient.Record, description: EntityDescription) -> [String: Bool] {
        var states: [String: Bool] = [:]
        for (local, remote) in description.mapping where AssetFields.asset(in: record.fields, remote: remote) != nil {
            states[local] = (try? isAssetPending(recordName: record.recordID.recordName, remote: remote, fields: record.fields)) ?? true
        }
        return states
    }
}
