import StratusWire

/// Loads `shares.jsonl` and `short-guids.jsonl` after the records they belong to.
///
/// A share must sit next to its `cloudkit.share` record in a private zone, name a root record
/// of that zone (or none: a zone-wide share), and carry a short GUID used nowhere else on this
/// server — short GUIDs are global, so one taken here is a conflict, not an overwrite.
struct ShareImport {
    let export: ExportDirectory
    let tx: any RecordStoreWriter
    /// The zones made by the import, by their number in the export.
    let zones: [Int: ZoneRow]

    func run(_ loaded: inout DataImport.Loaded) throws {
        let shares = try export.reader(ExportFormat.sharesFile)
        let guids = try export.reader(ExportFormat.shortGUIDsFile)
        let writer = tx
        var seen: Set<String> = []
        while let line = try shares.next(Exported.Share.self) {
            let place = "\(shares.entry.name) line \(shares.lineNumber)"
            guard let zone = zones[line.zone], zone.database.scope == .private else {
                throw ExportError("\(place): shares live in private zones the export lists")
            }
            guard try tx.record(named: line.shareName, inZone: zone.rowID)?.recordType == Record.shareRecordType else {
                throw ExportError("\(place): share '\(line.shareName.prefix(80))' has no cloudkit.share record in its zone")
            }
            if let root = line.rootRecordName, try tx.record(named: root, inZone: zone.rowID) == nil {
                throw ExportError("\(place): the root record '\(root.prefix(80))' of share '\(line.shareName.prefix(80))' is not in its zone")
            }
            try checkGUID(line.shortGUID, seen: &seen, writer, at: place)
            let participants = try line.participants.map { try Self.participant($0, at: place) }
            try writer.putShare(
                StoredShare(
                    zoneRowID: zone.rowID, shareName: line.shareName, rootRecordName: line.rootRecordName, shortGUID: line.shortGUID,
                    publicPermission: try Self.known(line.publicPermission, [.none, .readOnly, .readWrite], at: place), participants: participants))
            loaded.shares += 1
        }
        try shares.finish()
        var minted: Set<String> = []
        while let line = try guids.next(Exported.ShortGUID.self) {
            let place = "\(guids.entry.name) line \(guids.lineNumber)"
            guard let zone = zones[line.zone], try tx.record(named: line.recordName, inZone: zone.rowID) != nil else {
                throw ExportError("\(place): short GUID for a record the export does not hold")
            }
            // A share's root carries the share's GUID: that one is already known.
            if !seen.contains(line.shortGUID) { try checkGUID(line.shortGUID, seen: &minted, writer, at: place) }
            try writer.putShortGUID(line.shortGUID, recordName: line.recordName, inZone: zone.rowID)
        }
        try guids.finish()
    }

    private func checkGUID(_ guid: String, seen: inout Set<String>, _ writer: any ShareStoreWriter, at place: String) throws {
        guard ImportRules.isPlainName(guid, maximum: 64),
            guid.unicodeScalars.allSatisfy({ $0.isASCII && $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" })
        else {
            throw ExportError("\(place): '\(guid.prefix(80))' is not a short GUID")
        }
        guard seen.insert(guid).inserted, try writer.share(shortGUID: guid) == nil, try writer.record(shortGUID: guid) == nil else {
            throw ExportError("\(place): the short GUID '\(guid)' is already used here or twice in the export")
        }
    }

    private static func participant(_ line: Exported.Participant, at place: String) throws -> StoredParticipant {
        guard ImportRules.isPlainName(line.participantID), line.userRecordName.map({ ImportRules.isPlainName($0) }) ?? true,
            line.emailAddress.map({ ImportRules.isPlainName($0, maximum: 320) }) ?? true
        else {
            throw ExportError("\(place): a participant needs an ID, and a user record name or e-mail address of printable text")
        }
        return StoredParticipant(
            participantID: line.participantID, userRecordName: line.userRecordName, emailAddress: line.emailAddress,
            permission: try known(line.permission, [.readOnly, .readWrite], at: place),
            type: try participantType(line.type, at: place),
            acceptanceStatus: try known(line.acceptanceStatus, [.invited, .accepted, .removed], at: place))
    }

    /// A client may name any participant type but `UNKNOWN`; the store keeps what it was given.
    private static func participantType(_ type: ParticipantType, at place: String) throws -> ParticipantType {
        guard type != .unknown, !type.rawValue.isEmpty, type.rawValue.utf8.count <= 32, type.rawValue.utf8.allSatisfy({ (65...90).contains($0) || $0 == 95 })
        else {
            throw ExportError("\(place): '\(type.rawValue.prefix(40))' is not a participant type")
        }
        return type
    }

    private static func known<T: Equatable & CustomStringConvertible>(_ value: T, _ allowed: [T], at place: String) throws -> T {
        guard allowed.contains(value) else {
            throw ExportError("\(place): '\(String(describing: value).prefix(40))' is not one of \(allowed.map(\.description))")
        }
        return value
    }
}
