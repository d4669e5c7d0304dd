import StratusWire

/// The checks an import makes on names and values from an export, which is hostile until checked.
enum ImportRules {
    /// `_` and 32 lowercase hex digits.
    static func isUserRecordName(_ name: String) -> Bool {
        name.hasPrefix("_") && ExportFormat.isHex(String(name.dropFirst()), digits: 32)
    }

    /// 1 to `maximum` bytes without control characters: owners, subscribers, device IDs, short GUIDs, change tags.
    static func isPlainName(_ text: String, maximum: Int = 255) -> Bool {
        !text.isEmpty && text.utf8.count <= maximum && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// A database a request could reach (public with its one owner, or a user's private one) and,
    /// when given, a zone name it may hold (the public database holds only the default zone).
    static func check(_ database: DatabaseKey, zoneName: String?, at place: String) throws {
        switch database.scope {
        case .public:
            guard database.owner == DatabaseKey.publicOwner else { throw ExportError("\(place): a public database is owned by '\(DatabaseKey.publicOwner)'") }
            if let zoneName, zoneName != ZoneID.defaultZoneName { throw ExportError("\(place): the public database has only the default zone") }
        case .private:
            guard isPlainName(database.owner), database.owner != DatabaseKey.publicOwner else {
                throw ExportError("\(place): '\(database.owner.prefix(80))' cannot own a private database")
            }
        case .shared:
            throw ExportError("\(place): the shared database is a view of private zones; it holds nothing of its own")
        }
        guard let zoneName, zoneName != ZoneID.defaultZoneName else { return }
        do {
            try ZoneEndpoints.validate(zoneName: zoneName)
        } catch {
            throw ExportError("\(place): \(error.reason)")
        }
    }

    /// The record's fields, checked and reduced to what the store keeps: valid names and type,
    /// references within the zone, and assets naming content the export carries, at its size.
    static func fields(_ line: Exported.Record, zone: ZoneRow, assetSizes: [String: Int64], at place: String) throws -> [String: FieldValue] {
        do {
            try RecordModifier.validate(recordName: line.recordName)
            try RecordModifier.validate(recordType: line.recordType)
        } catch {
            throw ExportError("\(place): \(error.reason)")
        }
        let record = "record '\(line.recordName)'"
        guard isPlainName(line.changeTag, maximum: 64), isPlainName(line.created.userRecordName), isPlainName(line.modified.userRecordName),
            line.created.deviceID.utf8.count <= 255, line.modified.deviceID.utf8.count <= 255
        else {
            throw ExportError("\(place): \(record) needs a change tag (at most 64 bytes) and authors of 1 to 255 printable bytes")
        }
        var fields = line.fields
        for (name, value) in line.fields {
            if name != RecordPresenter.parentKey {
                do {
                    try SchemaAdmission.validate(fieldName: name)
                } catch {
                    throw ExportError("\(place): \(record): \(error.reason)")
                }
            }
            switch value {
            case .asset(let asset): fields[name] = .asset(try stored(asset, field: name, assetSizes, at: "\(place): \(record)"))
            case .assetList(let list): fields[name] = .assetList(try list.map { try stored($0, field: name, assetSizes, at: "\(place): \(record)") })
            default: break
            }
        }
        for (name, references) in RecordModifier.references(in: fields) {
            for reference in references where reference.zoneID.map({ $0.zoneName != zone.zoneName }) ?? false {
                throw ExportError("\(place): field '\(name)' of \(record) refers to another zone; references stay in their zone")
            }
        }
        return fields
    }

    /// The reference edges a record's fields hold, within its zone (the store indexes them by target).
    static func edges(of record: StoredRecord) -> [ReferenceEdge] {
        RecordModifier.references(in: record.fields).flatMap { field, references in
            references.map {
                ReferenceEdge(
                    sourceZoneRowID: record.zoneRowID, sourceRecordName: record.recordName, fieldName: field, targetZoneRowID: record.zoneRowID,
                    targetRecordName: $0.recordName, action: $0.action ?? ReferenceAction.none)
            }
        }
    }

    /// An asset value as the store keeps it (checksum and size), naming content the export carries.
    private static func stored(_ asset: Asset, field: String, _ sizes: [String: Int64], at place: String) throws -> Asset {
        // A value whose checksum is not one of a Stratus content key (saved while assets were off)
        // names no content; it keeps only its checksum and size.
        guard let checksum = asset.fileChecksum, let key = AssetChecksum.key(forFileChecksum: checksum) else {
            return Asset(fileChecksum: asset.fileChecksum, size: asset.size)
        }
        guard let size = sizes[key] else {
            throw ExportError("\(place): the asset in field '\(field)' names content \(key) the export does not carry")
        }
        guard asset.size == size else { throw ExportError("\(place): the asset in field '\(field)' is \(size) bytes, not \(asset.size ?? -1)") }
        return Asset(fileChecksum: checksum, size: size)
    }
}
