public import Foundation
public import StratusWire

/// A field a query filters or sorts on, typed by the Swift value it holds.
///
/// Write a record field as a string literal (`"title"`) or `.field("title")`; system fields are
/// static members typed by what they hold (``createdTimestamp`` is a `Date`, ``recordName`` a
/// `Reference`).
///
/// ```swift
/// QueryFilter.greaterThan("rank", 3)              // QueryKey<Int>
/// QueryFilter.lessThan(.createdTimestamp, cutoff) // QueryKey<Date>
/// ```
public struct QueryKey<Value: RecordValue>: Hashable, Sendable, ExpressibleByStringLiteral {
    /// The wire target: `fieldName` or `systemFieldName`.
    public let target: FieldTarget

    /// Names a system field or a record field.
    ///
    /// - Parameter target: The wire target.
    public init(target: FieldTarget) {
        self.target = target
    }

    /// Names a record field.
    ///
    /// - Parameter name: The field name.
    public init(stringLiteral name: String) {
        self.init(target: .field(name))
    }

    /// Names a record field.
    ///
    /// - Parameter name: The field name.
    /// - Returns: The key.
    public static func field(_ name: String) -> QueryKey<Value> {
        QueryKey(target: .field(name))
    }
}

extension QueryKey where Value == Date {
    /// When records were created (`createdTimestamp`, `___createTime`).
    public static var createdTimestamp: QueryKey<Date> { QueryKey(target: .system(.createdTimestamp)) }
    /// When records were last modified (`modifiedTimestamp`, `___modTime`).
    public static var modifiedTimestamp: QueryKey<Date> { QueryKey(target: .system(.modifiedTimestamp)) }
}

extension QueryKey where Value == Reference {
    /// The record's own name (`recordName`, `___recordId`), compared as a reference.
    public static var recordName: QueryKey<Reference> { QueryKey(target: .system(.recordName)) }
    /// The creator's user record (`createdUserRecordName`, `___createdBy`).
    public static var createdUserRecordName: QueryKey<Reference> { QueryKey(target: .system(.createdUserRecordName)) }
    /// The last modifier's user record (`modifiedUserRecordName`, `___modifiedBy`).
    public static var modifiedUserRecordName: QueryKey<Reference> { QueryKey(target: .system(.modifiedUserRecordName)) }
    /// The share covering records (`share`, `___share`).
    public static var share: QueryKey<Reference> { QueryKey(target: .system(.share)) }
    /// The parent of records (`parent`, `___parent`).
    public static var parent: QueryKey<Reference> { QueryKey(target: .system(.parent)) }
}
