public import Foundation
public import StratusWire

/// A record: a typed bag of fields with a record type, an ID and the server's metadata.
///
/// `Record` is a value type (`CKRecord` is a class): copies are independent and cross tasks
/// freely. It remembers which keys were set since it was created or fetched (``changedKeys()``),
/// and the values it had when fetched, so a conflict can show the ancestor.
///
/// ```swift
/// var note = Record(recordType: "Note", recordID: RecordID(recordName: "n1", zoneID: inbox))
/// note["title"] = "Groceries"
/// note["tags"] = ["home", "weekly"]
/// note["due"] = Date(timeIntervalSince1970: 1_750_000_000)
/// let saved = try await container.privateCloudDatabase.save(note)
/// let title: String? = saved["title"]
/// ```
public struct Record: Hashable, Sendable, CustomStringConvertible {
    /// The record's name and zone.
    public let recordID: RecordID
    /// The record type, such as `"Note"`.
    public let recordType: String
    /// The server's version token; `nil` until the record has been saved or fetched.
    public internal(set) var recordChangeTag: ChangeTag?
    /// When the record was created on the server.
    public internal(set) var creationDate: Date?
    /// When the record was last modified on the server.
    public internal(set) var modificationDate: Date?
    /// The user record name of the record's creator.
    public internal(set) var creatorUserRecordName: String?
    /// The user record name of the last modifier.
    public internal(set) var lastModifiedUserRecordName: String?
    /// The device that last modified the record, as the server reports it.
    public internal(set) var modifiedByDevice: String?
    /// The parent record, for hierarchical sharing.
    public var parent: Reference? {
        didSet { parentChanged = true }
    }
    /// The share covering this record, when it is shared (read-only).
    public internal(set) var share: Reference?

    var values: [String: FieldValue]
    var changed: Set<String> = []
    var parentChanged = false
    /// The fields as fetched, for ``StratusError/ancestorRecord``.
    var fetchedValues: [String: FieldValue]?

    /// Creates a new, unsaved record.
    ///
    /// - Parameters:
    ///   - recordType: The record type.
    ///   - recordID: The record's ID.
    public init(recordType: String, recordID: RecordID) {
        self.recordType = recordType
        self.recordID = recordID
        self.values = [:]
    }

    /// Creates a new, unsaved record in the default zone, with a new UUID name.
    ///
    /// - Parameter recordType: The record type.
    public init(recordType: String) {
        self.init(recordType: recordType, recordID: RecordID(recordName: LiveIdentifiers.newRecordName()))
    }

    /// Creates a new, unsaved record in a zone, with a new UUID name.
    ///
    /// - Parameters:
    ///   - recordType: The record type.
    ///   - zoneID: The record's zone.
    public init(recordType: String, zoneID: ZoneID) {
        self.init(recordType: recordType, recordID: RecordID(recordName: LiveIdentifiers.newRecordName(), zoneID: zoneID))
    }

    /// Reads or writes a field as its wire value; `nil` removes it.
    ///
    /// Prefer the typed subscript (`let title: String? = record["title"]`); this one is chosen when
    /// the type is not stated.
    ///
    /// - Parameter key: The field name.
    public subscript(key: String) -> FieldValue? {
        get { values[key] }
        set {
            values[key] = newValue
            changed.insert(key)
        }
    }

    /// Reads or writes a field as a Swift value: `record["title"] = "x"`, `let n: Int? = record["count"]`.
    ///
    /// Reading gives `nil` when the field is absent or holds another type.
    ///
    /// - Parameter key: The field name.
    public subscript<Value: RecordValue>(key: String) -> Value? {
        get { values[key].flatMap(Value.init(fieldValue:)) }
        set { self[key] = newValue?.fieldValue }
    }

    /// Reads a field as `type`; `nil` when absent or of another type.
    ///
    /// - Parameters:
    ///   - key: The field name.
    ///   - type: The Swift type to read it as.
    /// - Returns: The value.
    public func value<Value: RecordValue>(forKey key: String, as type: Value.Type = Value.self) -> Value? {
        values[key].flatMap(Value.init(fieldValue:))
    }

    /// The names of every field that has a value, sorted.
    public func allKeys() -> [String] { values.keys.sorted() }

    /// The names of the fields set or removed since the record was created or fetched, sorted.
    public func changedKeys() -> [String] { changed.sorted() }

    /// All field values by name.
    public var fields: [String: FieldValue] { values }

    /// The record as it was when fetched from the server, with its change tag (the conflict ancestor).
    public var ancestor: Record? {
        guard let fetchedValues, recordChangeTag != nil else { return nil }
        var ancestor = self
        ancestor.values = fetchedValues
        ancestor.changed = []
        ancestor.parentChanged = false
        return ancestor
    }

    /// The record type and name, the change tag and the field names.
    public var description: String {
        "Record(\(recordType) \(recordID.recordName) in \(recordID.zoneID.zoneName), tag: \(recordChangeTag?.rawValue ?? "-"), "
            + "fields: \(allKeys()))"
    }

    /// Compares type, ID, tag, metadata and field values (not the change tracking).
    public static func == (lhs: Record, rhs: Record) -> Bool {
        lhs.recordID == rhs.recordID && lhs.recordType == rhs.recordType && lhs.recordChangeTag == rhs.recordChangeTag
            && lhs.values == rhs.values && lhs.creationDate == rhs.creationDate
            && lhs.modificationDate == rhs.modificationDate && lhs.parent == rhs.parent && lhs.share == rhs.share
    }

    /// Hashes the ID, type, tag and field values.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(recordID)
        hasher.combine(recordType)
        hasher.combine(recordChangeTag)
        hasher.combine(values)
    }
}
