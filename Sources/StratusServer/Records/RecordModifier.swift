import StratusWire

/// Applies the operations of one `records/modify` request inside a store transaction.
///
/// All of CloudKit's write semantics live here, once, for every back end:
/// change-tag checks, merge versus replace, server-generated names, reference
/// validation and `DELETE_SELF` cascades, the schema check, record size.
/// Each operation runs in its own savepoint, so a failing one leaves no trace.
struct RecordModifier {
    let writer: any RecordStoreWriter
    let zone: ZoneRow
    let author: StoredRecord.Stamp
    let limits: ServiceLimits
    let makeRecordName: @Sendable () -> String
    var schema: SchemaAdmission
    /// In the public database: the calling user, whose security roles decide what they may create,
    /// change and delete (by default: change and delete only what they created); `nil` where the
    /// roles do not limit the writer (private databases, privileged callers such as server keys).
    var roleCheckedCaller: String? = nil
    /// In the public database: what the caller may read. A record it hides is never shown back in an
    /// `EXISTS` or `CONFLICT` answer (its `serverRecord`); `nil` where the caller reads everything.
    var readPolicy: ReadPolicy? = nil
    /// Checks asset fields (receipts) and reduces them to their stored form; assets pass unchecked when `nil`.
    var assets: AssetAdmission? = nil
    /// The changes of every operation applied so far, cascades included, in order (for push and asset references).
    var changes: [RecordChange] = []

    /// What one operation produced.
    enum Outcome {
        case saved(StoredRecord)
        case deleted(recordName: String)
    }

    /// Applies one operation; throws the error its result slot should carry.
    mutating func apply(_ operation: RecordOperation) throws -> Outcome {
        let writer = self.writer
        var admission = schema
        var applied: [RecordChange] = []
        let outcome = try writer.savepoint { () throws -> Outcome in
            switch operation.intent(in: zone.zoneID) {
            case .create(let record):
                return .saved(try save(record, mode: .create, admission: &admission, changes: &applied))
            case .update(let record, let tag):
                return .saved(try save(record, mode: .update(expecting: tag, merge: true), admission: &admission, changes: &applied))
            case .forceUpdate(let record):
                return .saved(try save(record, mode: .force(merge: true), admission: &admission, changes: &applied))
            case .replace(let record, let tag):
                return .saved(try save(record, mode: .update(expecting: tag, merge: false), admission: &admission, changes: &applied))
            case .forceReplace(let record):
                return .saved(try save(record, mode: .force(merge: false), admission: &admission, changes: &applied))
            case .delete(let id, let tag):
                try delete(id.recordName, expecting: tag, changes: &applied)
                return .deleted(recordName: id.recordName)
            case .forceDelete(let id):
                try delete(id.recordName, expecting: nil, changes: &applied)
                return .deleted(recordName: id.recordName)
            }
        }
        schema = admission
        changes.append(contentsOf: applied)
        return outcome
    }

    private enum SaveMode {
        case create
        case update(expecting: ChangeTag, merge: Bool)
        case force(merge: Bool)
    }

    private func save(_ incoming: Record, mode: SaveMode, admission: inout SchemaAdmission, changes: inout [RecordChange]) throws -> StoredRecord {
        let name = incoming.recordName ?? makeRecordName()
        try Self.validate(recordName: name)
        try checkZone(of: incoming, name: name)
        let existing = try writer.record(named: name, inZone: zone.rowID).flatMap { $0.isDeleted ? nil : $0 }
        try checkCreator(of: existing)
        // The change tag is checked before the assets: a client echoing the assets of the version it last
        // saw is told that version is stale (a conflict, with the server's record), not that an asset lacks a receipt.
        try checkTag(of: existing, name: name, mode: mode)
        var fields = try assets?.admit(incoming.fields ?? [:], existing: existing, recordName: name, writer) ?? incoming.fields ?? [:]
        switch mode {
        case .create: break
        case .update(_, let merge), .force(let merge):
            if merge, let existing { fields = existing.fields.merging(fields) { _, new in new } }
        }
        if let parent = incoming.parent {
            fields[RecordPresenter.parentKey] = .reference(Reference(recordName: parent.recordName))
        }
        guard let recordType = existing?.recordType ?? incoming.recordType else {
            throw ServiceError.badRequest("record '\(name)' does not exist, so the operation needs 'recordType' to create it")
        }
        if let given = incoming.recordType, given != recordType {
            throw ServiceError.badRequest("record '\(name)' is of type '\(recordType)'; it cannot be saved as '\(given)'")
        }
        try Self.validate(recordType: recordType)
        if existing == nil { try checkCreate(recordType: recordType, name: name) }
        try admission.admit(recordType: recordType, fields: incoming.fields ?? [:])
        try checkSize(fields, recordName: name)
        let references = try outgoingReferences(from: name, fields: fields)

        let sequence = try writer.nextChangeSequence(inZone: zone.rowID)
        let record = StoredRecord(
            zoneRowID: zone.rowID, recordName: name, recordType: recordType, changeTag: ChangeTags.tag(for: sequence, at: author.timestamp),
            fields: fields, created: existing?.created ?? author, modified: author, changeSequence: sequence
        )
        try writer.putRecord(record, references: references)
        changes.append(RecordChange(before: existing, after: record))
        return record
    }

    /// Throws `EXISTS` for a creation of an existing record, `NOT_FOUND` for an update of a missing one and
    /// `CONFLICT` (with the server's record) for an update with a stale change tag.
    private func checkTag(of existing: StoredRecord?, name: String, mode: SaveMode) throws {
        switch mode {
        case .create:
            if let existing {
                throw showing(existing, in: ServiceError(.exists, "record '\(name)' already exists in zone '\(zone.zoneName)'"))
            }
        case .update(let tag, _):
            guard let existing else {
                throw ServiceError(.notFound, "record '\(name)' does not exist in zone '\(zone.zoneName)'")
            }
            guard existing.changeTag == tag.rawValue else {
                throw showing(
                    existing,
                    in: ServiceError(
                        .conflict,
                        "record '\(name)' was changed by someone else: its change tag is '\(existing.changeTag)', the request had '\(tag.rawValue)'; merge with serverRecord and retry"
                    ))
            }
        case .force:
            return
        }
    }

    private func delete(_ name: String, expecting tag: ChangeTag?, changes: inout [RecordChange]) throws {
        let existing = try writer.record(named: name, inZone: zone.rowID).flatMap { $0.isDeleted ? nil : $0 }
        guard let existing else {
            if tag == nil { return }  // forceDelete of a missing record succeeds
            throw ServiceError(.notFound, "record '\(name)' does not exist in zone '\(zone.zoneName)'")
        }
        try checkCreator(of: existing)
        if let tag, existing.changeTag != tag.rawValue {
            throw showing(
                existing,
                in: ServiceError(
                    .conflict,
                    "record '\(name)' was changed by someone else: its change tag is '\(existing.changeTag)', the request had '\(tag.rawValue)'; fetch it and retry"
                ))
        }
        // Collect the cascade: every live record that reaches `name` through DELETE_SELF references.
        var doomed: [String] = [name]
        var doomedSet: Set<String> = [name]
        var blockers: [ReferenceEdge] = []
        var index = 0
        while index < doomed.count {
            for edge in try writer.references(toRecord: doomed[index], inZone: zone.rowID) {
                switch edge.action {
                case .deleteSelf:
                    if edge.sourceZoneRowID == zone.rowID, doomedSet.insert(edge.sourceRecordName).inserted {
                        doomed.append(edge.sourceRecordName)
                    }
                case .validate:
                    blockers.append(edge)
                default:
                    break
                }
            }
            index += 1
        }
        if let blocker = blockers.first(where: { !doomedSet.contains($0.sourceRecordName) }) {
            throw ServiceError(
                .validatingReferenceError,
                "record '\(blocker.targetRecordName)' cannot be deleted: record '\(blocker.sourceRecordName)' refers to it with a VALIDATE reference in field '\(blocker.fieldName)'"
            )
        }
        for victim in doomed {
            let before = victim == name ? existing : try writer.record(named: victim, inZone: zone.rowID)
            let sequence = try writer.nextChangeSequence(inZone: zone.rowID)
            try writer.deleteRecord(named: victim, inZone: zone.rowID, modified: author, sequence: sequence)
            if let before, !before.isDeleted { changes.append(RecordChange(before: before, after: nil)) }
        }
    }

    /// A record may name its zone; it must be the request's zone.
    private func checkZone(of record: Record, name: String) throws {
        guard let zoneID = record.zoneID else { return }
        guard zoneID.zoneName == zone.zoneName else {
            throw ServiceError.badRequest(
                "record '\(name)' names zone '\(zoneID.zoneName)' but the request is for zone '\(zone.zoneName)'; send one request per zone"
            )
        }
    }

    private func checkSize(_ fields: [String: FieldValue], recordName: String) throws {
        // Encoding every value only to count its bytes cost as much as storing the record;
        // when a cheap upper bound is within the limit, the exact size is too.
        if Self.sizeBound(fields) <= limits.maximumRecordSize { return }
        var size = 0
        for (name, value) in fields {
            switch value {
            case .asset, .assetList: continue
            default: size += name.utf8.count + (try Self.encodedSize(of: value, field: name, recordName: recordName))
            }
        }
        guard size <= limits.maximumRecordSize else {
            throw ServiceError.badRequest(
                "record '\(recordName)' is \(size) bytes; the limit is \(limits.maximumRecordSize) bytes (assets excluded)"
            )
        }
    }

    /// The bytes of `value`'s JSON: what a record's size counts.
    ///
    /// - Throws: `BAD_REQUEST` naming the field when the value has no JSON form (counting it as
    ///   nothing would let it past the size limit).
    private static func encodedSize(of value: FieldValue, field: String, recordName: String) throws(ServiceError) -> Int {
        do {
            return try WireCoding.encode(value).count
        } catch {
            throw .badRequest("field '\(field)' of record '\(recordName)' cannot be stored: its value has no JSON form (\(error))")
        }
    }

    /// An upper bound of the size `checkSize` computes: field names plus each value's
    /// `{"type":"…","value":…}` with every string byte escaped to six; `Int.max` for types it does not bound.
    static func sizeBound(_ fields: [String: FieldValue]) -> Int {
        var bound = 0
        for (name, value) in fields {
            let wrapper = name.utf8.count + 20 + value.type.rawValue.utf8.count
            switch value {
            case .asset, .assetList: continue
            case .string(let string): bound += wrapper + 2 + 6 * string.utf8.count
            case .int64, .timestamp: bound += wrapper + 20
            case .double: bound += wrapper + 32
            case .stringList(let strings): bound += wrapper + 2 + strings.reduce(0) { $0 + 3 + 6 * $1.utf8.count }
            case .int64List(let values): bound += wrapper + 2 + 21 * values.count
            case .timestampList(let values): bound += wrapper + 2 + 21 * values.count
            case .doubleList(let values): bound += wrapper + 2 + 33 * values.count
            case .reference(let reference): bound += wrapper + referenceBound(reference)
            case .referenceList(let references): bound += wrapper + 2 + references.reduce(0) { $0 + 1 + referenceBound($1) }
            default: return .max
            }
        }
        return bound
    }

    /// An upper bound of a reference's JSON: every member present, every string byte escaped to six
    /// (a note's folder reference made every save encode all its fields only to count them).
    private static func referenceBound(_ reference: Reference) -> Int {
        let strings = [
            reference.action?.rawValue, reference.recordName, reference.zoneID?.zoneName, reference.zoneID?.ownerRecordName, reference.zoneID?.zoneType,
        ]
        return 100 + strings.reduce(0) { $0 + 6 * ($1?.utf8.count ?? 0) }
    }

    /// The references the record's fields hold, checked: same zone, VALIDATE targets exist,
    /// and no target gets more than the allowed number of DELETE_SELF references.
    private func outgoingReferences(from source: String, fields: [String: FieldValue]) throws -> [ReferenceEdge] {
        var edges: [ReferenceEdge] = []
        for (fieldName, references) in Self.references(in: fields) {
            for reference in references {
                if let target = reference.zoneID, target.zoneName != zone.zoneName {
                    throw ServiceError.badRequest(
                        "field '\(fieldName)' of record '\(source)' refers to zone '\(target.zoneName)'; references must stay in the record's zone '\(zone.zoneName)'"
                    )
                }
                let action = reference.action ?? ReferenceAction.none
                if action == .validate, reference.recordName != source {
                    let target = try writer.record(named: reference.recordName, inZone: zone.rowID)
                    if target == nil || target?.isDeleted == true {
                        throw ServiceError(
                            .validatingReferenceError,
                            "field '\(fieldName)' of record '\(source)' has a VALIDATE reference to record '\(reference.recordName)', which does not exist"
                        )
                    }
                }
                if action == .deleteSelf {
                    let existing = try writer.references(toRecord: reference.recordName, inZone: zone.rowID)
                        .filter { $0.action == .deleteSelf && $0.sourceRecordName != source }.count
                    if existing + 1 > limits.maximumDeleteSelfReferencesPerTarget {
                        throw ServiceError.badRequest(
                            "record '\(reference.recordName)' already has \(existing) DELETE_SELF references; the limit is \(limits.maximumDeleteSelfReferencesPerTarget)"
                        )
                    }
                }
                edges.append(
                    ReferenceEdge(
                        sourceZoneRowID: zone.rowID, sourceRecordName: source, fieldName: fieldName,
                        targetZoneRowID: zone.rowID, targetRecordName: reference.recordName, action: action
                    )
                )
            }
        }
        return edges
    }

    /// The reference fields of `fields` and the references each holds, by field name.
    static func references(in fields: [String: FieldValue]) -> [(field: String, references: [Reference])] {
        fields.keys.sorted().compactMap { name in
            switch fields[name] {
            case .reference(let reference): (name, [reference])
            case .referenceList(let list): (name, list)
            default: nil
            }
        }
    }

    static func validate(recordName name: String) throws(ServiceError) {
        guard !name.isEmpty, name.utf8.count <= 255,
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw .badRequest("record name '\(name)' is invalid: use 1 to 255 bytes without control characters")
        }
    }

    static func validate(recordType name: String) throws(ServiceError) {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic || name == Record.shareRecordType,
            name.utf8.count <= 255
        else {
            throw .badRequest("record type '\(name)' is invalid: it must start with a letter and be at most 255 bytes")
        }
    }
}

/// Change tags: a record version's change sequence and write time, in base 36 (`3f-mbx2k1a8`) —
/// made here only, for the service and for the back ends that write tombstones.
///
/// The sequence alone repeats: a zone deleted and made again numbers its changes from 1, and a
/// database restored from an earlier backup numbers them again from where the backup stood. A
/// client holding a tag from before would then pass the tag check of an update against a
/// *different* version that happens to carry the same number, and overwrite it without merging
/// (the sync simulator found it: an edit made on another device after the zone was made again
/// vanished from one device for good). With the write time in it, a tag names one version.
///
/// ```swift
/// ChangeTags.tag(for: 1_296, at: 1_700_000_000_000)  // "100-loyw3v28"
/// ```
public enum ChangeTags {
    /// The change tag of the version with zone change sequence `sequence`, written at `milliseconds`.
    ///
    /// - Parameters:
    ///   - sequence: The record's change sequence.
    ///   - milliseconds: The write's time, in milliseconds since 1970.
    /// - Returns: The sequence and the time in base 36, joined by `-`.
    public static func tag(for sequence: Int64, at milliseconds: Int64) -> String {
        String(sequence, radix: 36) + "-" + String(milliseconds, radix: 36)
    }
}

extension RecordModifier {
    /// Refuses a change to a record the caller's security roles do not let them change
    /// (by default: one someone else created), in the public database.
    fileprivate func checkCreator(of existing: StoredRecord?) throws(ServiceError) {
        guard let roleCheckedCaller, let existing else { return }
        let roles = schema.schema.recordTypes[existing.recordType]?.roles ?? .default
        guard !roles.mayWrite(existing, caller: roleCheckedCaller) else { return }
        if roles.creator.write {
            throw ServiceError(.accessDenied, "record '\(existing.recordName)' was created by another user; only its creator may change or delete it")
        }
        throw ServiceError(.accessDenied, "records of type '\(existing.recordType)' cannot be changed or deleted by users in the public database")
    }

    /// `error` with the server's record attached for the client to merge with, unless the caller's
    /// read policy hides that record: then the error alone (the name is taken; nothing of the record shows).
    fileprivate func showing(_ existing: StoredRecord, in error: ServiceError) -> ServiceError {
        guard readPolicy?.allows(existing) ?? true else {
            // Nor its change tag, which the usual reason names.
            let reason =
                error.code == .exists
                ? "record '\(existing.recordName)' already exists in zone '\(zone.zoneName)'"
                : "record '\(existing.recordName)' was changed by someone else since the change tag the request had"
            return ServiceError(error.code, reason)
        }
        return error.with(serverRecord: existing, zone: zone)
    }

    /// Refuses a new public record of a type whose security roles do not let users create records.
    fileprivate func checkCreate(recordType: String, name: String) throws(ServiceError) {
        guard roleCheckedCaller != nil, let roles = schema.schema.recordTypes[recordType]?.roles, !roles.mayCreate else { return }
        throw ServiceError(.accessDenied, "record '\(name)': users may not create records of type '\(recordType)' in the public database")
    }
}
