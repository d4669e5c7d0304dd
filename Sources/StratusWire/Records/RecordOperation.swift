/// One entry of a `records/modify` request: the Record Operation dictionary.
///
/// The stored properties mirror the JSON (`operationType`, `record`, `desiredKeys`), but a value
/// can only be built through the validating factories or by decoding, so an `update` always
/// carries a change tag and a `delete` always names its record:
///
/// ```swift
/// let operations: [RecordOperation] = [
///     .create(Record(recordName: "t1", recordType: "Task", fields: ["title": .string("Ship")])),
///     .update(Record(recordName: "t0", fields: ["done": .int64(1)]), expecting: "1e"),
///     .forceDelete(RecordID(recordName: "t9")),
/// ]
/// if case .update(let record, expecting: let tag) = operations[1].intent() {
///     print("update", record.recordName ?? "?", "expecting", tag)
/// }
/// ```
///
/// CloudKit reference: Modifying Records (records/modify); Apple's CloudKit Web Services Reference: “records/modify”.
public struct RecordOperation: Hashable, Sendable {
    /// The seven `operationType` values.
    public enum OperationType: String, Hashable, Sendable, Codable, CaseIterable {
        /// Create; the record must not exist.
        case create
        /// Merge the listed fields; the change tag must match.
        case update
        /// Merge without a tag check; creates the record if missing.
        case forceUpdate
        /// Replace all fields; the change tag must match.
        case replace
        /// Replace without a tag check; creates the record if missing.
        case forceReplace
        /// Delete; the change tag must match.
        case delete
        /// Delete without a tag check.
        case forceDelete

        /// Whether the operation checks `recordChangeTag`.
        public var checksChangeTag: Bool { self == .update || self == .replace || self == .delete }
    }

    /// The validated meaning of an operation, for switching.
    public enum Intent: Hashable, Sendable {
        /// Create the record.
        case create(Record)
        /// Merge fields into the record if its tag still matches.
        case update(Record, expecting: ChangeTag)
        /// Merge fields, creating the record if missing.
        case forceUpdate(Record)
        /// Replace the record's fields if its tag still matches.
        case replace(Record, expecting: ChangeTag)
        /// Replace the record's fields, creating it if missing.
        case forceReplace(Record)
        /// Delete the record if its tag still matches.
        case delete(RecordID, expecting: ChangeTag)
        /// Delete the record unconditionally.
        case forceDelete(RecordID)
    }

    /// What to do.
    public private(set) var operationType: OperationType
    /// The record to write, or the name (and tag) of the record to delete.
    public private(set) var record: Record
    /// Per-operation override of the request's `desiredKeys`.
    public var desiredKeys: [String]?

    private init(_ operationType: OperationType, _ record: Record, desiredKeys: [String]?) {
        self.operationType = operationType
        self.record = record
        self.desiredKeys = desiredKeys
    }

    /// Creates an operation from its wire parts, validating them.
    ///
    /// - Parameters:
    ///   - operationType: What to do.
    ///   - record: The record dictionary.
    ///   - desiredKeys: Per-operation field projection.
    /// - Throws: ``WireError`` with ``WireError/Code/invalidOperation`` if `record` lacks what the
    ///   operation needs (`recordType` for `create`; `recordName` for all others; `recordChangeTag`
    ///   for `update`, `replace` and `delete`).
    public init(operationType: OperationType, record: Record, desiredKeys: [String]? = nil) throws(WireError) {
        try Self.validate(operationType, record, codingPath: [WireCodingKey("record")])
        self.init(operationType, record, desiredKeys: desiredKeys)
    }

    /// Creates a new record; the server picks a name if `record.recordName` is `nil`.
    ///
    /// - Parameters:
    ///   - record: The record, with `recordType` set.
    ///   - desiredKeys: Fields to echo back.
    /// - Returns: A `create` operation.
    public static func create(_ record: Record, desiredKeys: [String]? = nil) -> RecordOperation {
        precondition(record.recordType != nil, "RecordOperation.create needs a record with a recordType")
        return RecordOperation(.create, record, desiredKeys: desiredKeys)
    }

    /// Merges `record`'s fields into the stored record if its tag is still `tag`.
    ///
    /// - Parameters:
    ///   - record: The record, with `recordName` set.
    ///   - tag: The change tag the caller last saw.
    ///   - desiredKeys: Fields to echo back.
    /// - Returns: An `update` operation.
    public static func update(_ record: Record, expecting tag: ChangeTag, desiredKeys: [String]? = nil) -> RecordOperation {
        RecordOperation(.update, tagged(record, tag, "update"), desiredKeys: desiredKeys)
    }

    /// Merges `record`'s fields without a tag check, creating the record if missing.
    ///
    /// - Parameters:
    ///   - record: The record, with `recordName` (and `recordType` in case it must be created).
    ///   - desiredKeys: Fields to echo back.
    /// - Returns: A `forceUpdate` operation.
    public static func forceUpdate(_ record: Record, desiredKeys: [String]? = nil) -> RecordOperation {
        RecordOperation(.forceUpdate, named(record, "forceUpdate"), desiredKeys: desiredKeys)
    }

    /// Replaces all fields of the stored record if its tag is still `tag`.
    ///
    /// - Parameters:
    ///   - record: The record, with `recordName` set.
    ///   - tag: The change tag the caller last saw.
    ///   - desiredKeys: Fields to echo back.
    /// - Returns: A `replace` operation.
    public static func replace(_ record: Record, expecting tag: ChangeTag, desiredKeys: [String]? = nil) -> RecordOperation {
        RecordOperation(.replace, tagged(record, tag, "replace"), desiredKeys: desiredKeys)
    }

    /// Replaces all fields without a tag check, creating the record if missing.
    ///
    /// - Parameters:
    ///   - record: The record, with `recordName` (and `recordType` in case it must be created).
    ///   - desiredKeys: Fields to echo back.
    /// - Returns: A `forceReplace` operation.
    public static func forceReplace(_ record: Record, desiredKeys: [String]? = nil) -> RecordOperation {
        RecordOperation(.forceReplace, named(record, "forceReplace"), desiredKeys: desiredKeys)
    }

    /// Deletes a record if its tag is still `tag`.
    ///
    /// Only `recordName` and `recordChangeTag` are written; the zone comes from the request's
    /// `zoneID`, so `id.zoneID` must match it.
    ///
    /// - Parameters:
    ///   - id: The record to delete.
    ///   - tag: The change tag the caller last saw.
    /// - Returns: A `delete` operation.
    public static func delete(_ id: RecordID, expecting tag: ChangeTag) -> RecordOperation {
        RecordOperation(.delete, Record(recordName: id.recordName, recordChangeTag: tag), desiredKeys: nil)
    }

    /// Deletes a record unconditionally.
    ///
    /// Only `recordName` is written; the zone comes from the request's `zoneID`.
    ///
    /// - Parameter id: The record to delete.
    /// - Returns: A `forceDelete` operation.
    public static func forceDelete(_ id: RecordID) -> RecordOperation {
        RecordOperation(.forceDelete, Record(recordName: id.recordName), desiredKeys: nil)
    }

    /// The operation as an enum with payloads.
    ///
    /// - Parameter zoneID: The request's zone, used for delete IDs when the record carries no `zoneID`.
    /// - Returns: The validated intent.
    public func intent(in zoneID: ZoneID = .defaultZone) -> Intent {
        switch operationType {
        case .create: return .create(record)
        case .forceUpdate: return .forceUpdate(record)
        case .forceReplace: return .forceReplace(record)
        case .update: return .update(record, expecting: requiredTag)
        case .replace: return .replace(record, expecting: requiredTag)
        case .delete: return .delete(requiredID(zoneID), expecting: requiredTag)
        case .forceDelete: return .forceDelete(requiredID(zoneID))
        }
    }

    private var requiredTag: ChangeTag {
        guard let tag = record.recordChangeTag else {
            preconditionFailure("RecordOperation invariant broken: \(operationType) without recordChangeTag")
        }
        return tag
    }

    private func requiredID(_ zoneID: ZoneID) -> RecordID {
        guard let id = record.id(defaultZone: zoneID) else {
            preconditionFailure("RecordOperation invariant broken: \(operationType) without recordName")
        }
        return id
    }

    private static func named(_ record: Record, _ operation: String) -> Record {
        precondition(record.recordName != nil, "RecordOperation.\(operation) needs a record with a recordName")
        return record
    }

    private static func tagged(_ record: Record, _ tag: ChangeTag, _ operation: String) -> Record {
        var record = named(record, operation)
        record.recordChangeTag = tag
        return record
    }

    static func validate(_ type: OperationType, _ record: Record, codingPath: [any CodingKey]) throws(WireError) {
        func fail(_ message: String) -> WireError {
            WireError(code: .invalidOperation, message: message, codingPath: codingPath)
        }
        if type == .create {
            guard record.recordType != nil else { throw fail("a create operation needs 'recordType'") }
            return
        }
        guard record.recordName != nil else { throw fail("a \(type.rawValue) operation needs 'recordName'") }
        if type.checksChangeTag, record.recordChangeTag == nil {
            throw fail(
                "a \(type.rawValue) operation needs 'recordChangeTag'; use force\(type.rawValue.prefix(1).uppercased() + type.rawValue.dropFirst()) to skip the check"
            )
        }
    }
}

extension RecordOperation: Codable {
    private enum CodingKeys: String, CodingKey {
        case operationType, record, desiredKeys
    }

    /// Decodes and validates an operation dictionary.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: ``WireError`` naming the path, for an unknown `operationType` or a record that lacks
    ///   what the operation needs.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .operationType)
        guard let type = OperationType(rawValue: name) else {
            throw WireError(
                code: .invalidValue, message: "unknown operationType '\(name)'",
                codingPath: decoder.codingPath + [CodingKeys.operationType])
        }
        let record = try container.decode(Record.self, forKey: .record)
        try Self.validate(type, record, codingPath: decoder.codingPath + [CodingKeys.record])
        self.init(type, record, desiredKeys: try container.decodeIfPresent([String].self, forKey: .desiredKeys))
    }

    /// Encodes the operation dictionary.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(operationType, forKey: .operationType)
        try container.encode(record, forKey: .record)
        try container.encodeIfPresent(desiredKeys, forKey: .desiredKeys)
    }
}
