public import StratusWire

extension Record {
    /// Creates a record from a wire Record dictionary the server sent; it has no changed keys.
    ///
    /// - Parameters:
    ///   - wire: The record dictionary.
    ///   - zoneID: The zone the request addressed, used when the dictionary carries none.
    /// - Throws: ``StratusError`` with ``StratusError/Code/serverResponseLost`` when `recordName` or
    ///   `recordType` is missing.
    public init(wire: StratusWire.Record, zoneID: ZoneID) throws(StratusError) {
        guard let recordName = wire.recordName else {
            throw StratusError(.serverResponseLost, "the server sent a record without a recordName")
        }
        guard let recordType = wire.recordType else {
            throw StratusError(.serverResponseLost, "the server sent record '\(recordName)' without a recordType")
        }
        self.init(wire: wire, recordID: RecordID(recordName: recordName, zoneID: zoneID), recordType: recordType)
    }

    /// Creates a record from a wire dictionary whose ID and type the caller already knows.
    init(wire: StratusWire.Record, recordID: RecordID, recordType: String) {
        self.init(recordType: recordType, recordID: recordID)
        values = wire.fields ?? [:]
        fetchedValues = values
        recordChangeTag = wire.recordChangeTag
        creationDate = wire.created?.timestamp.date
        creatorUserRecordName = wire.created?.userRecordName
        modificationDate = wire.modified?.timestamp.date
        lastModifiedUserRecordName = wire.modified?.userRecordName
        modifiedByDevice = wire.modified?.deviceID
        share = wire.share
        parent = wire.parent
        parentChanged = false
    }

    /// The wire Record dictionary with every field (what `create` and `forceReplace` send).
    ///
    /// The zone is not written: `records/modify` names it once per request.
    public var wireRecord: StratusWire.Record {
        wireRecord(fields: values)
    }

    /// The wire Record dictionary with only the changed fields that still have a value.
    public var wireRecordWithChangedKeys: StratusWire.Record {
        wireRecord(fields: values.filter { changed.contains($0.key) })
    }

    /// Whether a changed key was removed; merges cannot express that (the wire has no null value).
    var hasRemovedKeys: Bool {
        changed.contains { values[$0] == nil }
    }

    private func wireRecord(fields: [String: FieldValue]) -> StratusWire.Record {
        var wire = StratusWire.Record(
            recordName: recordID.recordName, recordType: recordType, recordChangeTag: recordChangeTag, fields: fields)
        if parentChanged || parent != nil { wire.parent = parent }
        return wire
    }

    /// The `records/modify` operation that saves this record under `policy`.
    ///
    /// - `.ifServerRecordUnchanged`: `create` for a record never saved, else `update` with the
    ///   changed keys and the change tag (`replace` with every field when a key was removed).
    /// - `.changedKeys`: `forceUpdate` with the changed keys (`forceReplace` when a key was removed).
    /// - `.allKeys`: `forceReplace` with every field.
    ///
    /// - Parameter policy: The save policy.
    /// - Returns: The operation.
    public func saveOperation(policy: SavePolicy) -> RecordOperation {
        switch policy.kind {
        case .ifServerRecordUnchanged:
            guard let tag = recordChangeTag else { return .create(wireRecord) }
            return hasRemovedKeys ? .replace(wireRecord, expecting: tag) : .update(wireRecordWithChangedKeys, expecting: tag)
        case .changedKeys:
            return hasRemovedKeys ? .forceReplace(wireRecord) : .forceUpdate(wireRecordWithChangedKeys)
        case .allKeys:
            return .forceReplace(wireRecord)
        }
    }
}

/// How ``Database/modifyRecords(saving:deleting:savePolicy:atomically:)`` writes records (`CKModifyRecordsOperation.RecordSavePolicy`).
public struct SavePolicy: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case ifServerRecordUnchanged, changedKeys, allKeys
    }

    let kind: Kind

    /// Save only if the server's record still has the change tag the client holds (`create`/`update`);
    /// otherwise fail with ``StratusError/Code/serverRecordChanged``.
    public static let ifServerRecordUnchanged = SavePolicy(kind: .ifServerRecordUnchanged)
    /// Write the changed keys whatever the server has (`forceUpdate`).
    public static let changedKeys = SavePolicy(kind: .changedKeys)
    /// Replace the server's record with this one (`forceReplace`).
    public static let allKeys = SavePolicy(kind: .allKeys)

    /// The policy's name.
    public var description: String { "\(kind)" }
}
