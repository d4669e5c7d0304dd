/// A pointer from one record to another: the Reference dictionary.
///
/// `action` is required when writing a REFERENCE field and omitted inside query filter values
/// and in `parent`/`share` pointers.
///
/// ```swift
/// let owner = Reference(recordName: "p1", action: .deleteSelf)
/// ```
///
/// CloudKit reference: Types ("Reference Dictionary"); Apple's CloudKit Web Services Reference: “Reference dictionary”.
public struct Reference: Hashable, Sendable, Codable {
    /// The target record's name.
    public var recordName: String
    /// The target record's zone; `nil` means the referencing record's zone.
    public var zoneID: ZoneID?
    /// What happens when the target goes away.
    public var action: ReferenceAction?

    /// Creates a reference.
    ///
    /// - Parameters:
    ///   - recordName: The target record's name.
    ///   - zoneID: The target record's zone, if different from the source's.
    ///   - action: The delete behaviour (`nil` in filters and parent pointers).
    public init(recordName: String, zoneID: ZoneID? = nil, action: ReferenceAction? = nil) {
        self.recordName = recordName
        self.zoneID = zoneID
        self.action = action
    }

    /// Creates a reference to a record ID, writing its zone.
    ///
    /// - Parameters:
    ///   - recordID: The target record.
    ///   - action: The delete behaviour.
    public init(_ recordID: RecordID, action: ReferenceAction? = nil) {
        self.init(recordName: recordID.recordName, zoneID: recordID.zoneID, action: action)
    }
}

/// The `action` of a reference: `NONE`, `DELETE_SELF` or `VALIDATE`.
///
/// An open set: an unknown action string is kept, not rejected.
public struct ReferenceAction: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The wire string.
    public var rawValue: String

    /// Creates an action from its wire string.
    ///
    /// - Parameter rawValue: The wire string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The wire string.
    public var description: String { rawValue }

    /// `NONE`: nothing happens when the target is deleted.
    public static let none = ReferenceAction(rawValue: "NONE")
    /// `DELETE_SELF`: deleting the target deletes the referencing record.
    public static let deleteSelf = ReferenceAction(rawValue: "DELETE_SELF")
    /// `VALIDATE`: the target must exist and cannot be deleted while referenced.
    public static let validate = ReferenceAction(rawValue: "VALIDATE")
}
