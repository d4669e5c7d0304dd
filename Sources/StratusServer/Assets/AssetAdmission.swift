import StratusWire

/// Checks the asset fields of a record being saved and turns them into their stored form.
///
/// A new asset value must carry a receipt from this server's upload (or from
/// `assets/rereference`) that this caller obtained in this container
/// environment, for content that is still stored. A value without a receipt
/// is accepted only when the record already holds that content in that field
/// (a client echoing a fetched record). Stored values keep `fileChecksum` and
/// `size` only; download URLs are added when records are presented.
struct AssetAdmission {
    let tokens: TokenCodec
    let caller: String
    let database: DatabaseKey

    /// The fields with every asset value checked and reduced to its stored form.
    func admit(
        _ fields: [String: FieldValue], existing: StoredRecord?, recordName: String, _ reader: any RecordStoreReader
    ) throws
        -> [String: FieldValue]
    {
        guard fields.values.contains(where: Self.holdsAssets) else { return fields }
        var admitted = fields
        for (name, value) in fields {
            switch value {
            case .asset(let asset):
                admitted[name] = .asset(try admit(asset, field: name, existing: existing?.fields[name], recordName: recordName, reader))
            case .assetList(let assets):
                admitted[name] = .assetList(
                    try assets.map { try admit($0, field: name, existing: existing?.fields[name], recordName: recordName, reader) }
                )
            default:
                continue
            }
        }
        return admitted
    }

    private func admit(_ asset: Asset, field: String, existing: FieldValue?, recordName: String, _ reader: any RecordStoreReader) throws -> Asset {
        guard let receiptText = asset.receipt else {
            let held = existing.map { RecordFilterEvaluator.elements(of: $0) } ?? []
            if let checksum = asset.fileChecksum, held.contains(where: { $0.assetValue?.fileChecksum == checksum }),
                let current = held.lazy.compactMap(\.assetValue).first(where: { $0.fileChecksum == checksum })
            {
                return Asset(fileChecksum: current.fileChecksum, size: current.size)
            }
            throw ServiceError.badRequest(
                "field '\(field)' of record '\(recordName)' has an asset without a receipt; upload it with assets/upload, or get a receipt for an existing asset with assets/rereference"
            )
        }
        guard let receipt = tokens.open(receiptText, kind: .assetReceipt, as: AssetReceipt.self) else {
            throw ServiceError.badRequest("the asset receipt in field '\(field)' of record '\(recordName)' is not valid for this server")
        }
        guard receipt.c == database.container, receipt.e == database.environment.rawValue, receipt.u == caller else {
            throw ServiceError(
                .accessDenied, "the asset receipt in field '\(field)' of record '\(recordName)' was issued to another user, container or environment"
            )
        }
        let checksum = AssetChecksum.fileChecksum(forKey: receipt.k)
        if let given = asset.fileChecksum, given != checksum {
            throw ServiceError.badRequest("field '\(field)' of record '\(recordName)': fileChecksum does not match the receipt")
        }
        if let size = asset.size, size != receipt.s {
            throw ServiceError.badRequest("field '\(field)' of record '\(recordName)': size \(size) does not match the receipt's \(receipt.s)")
        }
        guard try reader.asset(key: receipt.k) != nil else {
            throw ServiceError.badRequest(
                "the asset in field '\(field)' of record '\(recordName)' is no longer stored (it was never attached within the grace period); upload it again"
            )
        }
        return Asset(fileChecksum: checksum, size: receipt.s)
    }

    static func holdsAssets(_ value: FieldValue) -> Bool {
        switch value {
        case .asset, .assetList: true
        default: false
        }
    }

    /// The content references a record's fields hold.
    static func references(of record: StoredRecord?) -> [AssetReferenceKey] {
        guard let record, record.fields.values.contains(where: holdsAssets) else { return [] }
        var keys: [AssetReferenceKey] = []
        for (name, value) in record.fields.sorted(by: { $0.key < $1.key }) {
            switch value {
            case .asset(let asset):
                if let key = asset.fileChecksum.flatMap(AssetChecksum.key(forFileChecksum:)) {
                    keys.append(AssetReferenceKey(fieldName: name, position: 0, key: key))
                }
            case .assetList(let assets):
                for (position, asset) in assets.enumerated() {
                    if let key = asset.fileChecksum.flatMap(AssetChecksum.key(forFileChecksum:)) {
                        keys.append(AssetReferenceKey(fieldName: name, position: position, key: key))
                    }
                }
            default:
                continue
            }
        }
        return keys
    }
}
