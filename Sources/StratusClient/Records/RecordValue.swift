public import Foundation
public import StratusWire

/// A Swift type that a record field can hold: `String`, `Int`, `Int64`, `Double`, `Bool`, `Date`,
/// `Data`, `Reference`, `Location`, `Asset`, and arrays of the list-capable ones.
///
/// Values convert to the wire ``FieldValue`` with its type tag, so a `Date` is always written as
/// `TIMESTAMP` (whole milliseconds) and `Data` as `BYTES`; reading back is strict (an `INT64`
/// field does not read as `Double`), except that `Bool` reads `INT64` 0 and 1.
///
/// ```swift
/// record["rank"] = 3                 // INT64
/// record["ratio"] = 0.5              // DOUBLE
/// record["done"] = true              // INT64 1 (CloudKit has no Boolean type)
/// let due: Date? = record["due"]     // TIMESTAMP
/// ```
public protocol RecordValue: Sendable {
    /// The value as a tagged wire field value.
    var fieldValue: FieldValue { get }
    /// Reads a wire field value; `nil` when it holds another type.
    init?(fieldValue: FieldValue)
}

/// A ``RecordValue`` that can also be an element of a list field (`STRING_LIST`, `INT64_LIST`, …).
public protocol RecordListElement: RecordValue {
    /// Wraps elements into the list field value of this element type.
    static func listFieldValue(_ elements: [Self]) -> FieldValue
    /// Unwraps a list field value of this element type; `nil` for another type.
    static func elements(of fieldValue: FieldValue) -> [Self]?
}

/// A ``RecordValue`` with an order, usable with the ordering comparators of a query.
public protocol QueryOrderable: RecordValue {}

extension String: RecordListElement, QueryOrderable {
    /// `STRING`.
    public var fieldValue: FieldValue { .string(self) }
    /// Reads `STRING`.
    public init?(fieldValue: FieldValue) {
        guard case .string(let value) = fieldValue else { return nil }
        self = value
    }
    /// `STRING_LIST`.
    public static func listFieldValue(_ elements: [String]) -> FieldValue { .stringList(elements) }
    /// Reads `STRING_LIST` (or an empty untyped list).
    public static func elements(of fieldValue: FieldValue) -> [String]? {
        switch fieldValue {
        case .stringList(let values): values
        case .emptyList: []
        default: nil
        }
    }
}

extension Int64: RecordListElement, QueryOrderable {
    /// `INT64`.
    public var fieldValue: FieldValue { .int64(self) }
    /// Reads `INT64`.
    public init?(fieldValue: FieldValue) {
        guard case .int64(let value) = fieldValue else { return nil }
        self = value
    }
    /// `INT64_LIST`.
    public static func listFieldValue(_ elements: [Int64]) -> FieldValue { .int64List(elements) }
    /// Reads `INT64_LIST` (or an empty untyped list).
    public static func elements(of fieldValue: FieldValue) -> [Int64]? {
        switch fieldValue {
        case .int64List(let values): values
        case .emptyList: []
        default: nil
        }
    }
}

extension Int: RecordListElement, QueryOrderable {
    /// `INT64`.
    public var fieldValue: FieldValue { .int64(Int64(self)) }
    /// Reads `INT64` that fits in `Int`.
    public init?(fieldValue: FieldValue) {
        guard case .int64(let value) = fieldValue, let int = Int(exactly: value) else { return nil }
        self = int
    }
    /// `INT64_LIST`.
    public static func listFieldValue(_ elements: [Int]) -> FieldValue { .int64List(elements.map(Int64.init)) }
    /// Reads `INT64_LIST` whose elements fit in `Int`.
    public static func elements(of fieldValue: FieldValue) -> [Int]? {
        guard let values = Int64.elements(of: fieldValue) else { return nil }
        var result: [Int] = []
        result.reserveCapacity(values.count)
        for value in values {
            guard let int = Int(exactly: value) else { return nil }
            result.append(int)
        }
        return result
    }
}

extension Double: RecordListElement, QueryOrderable {
    /// `DOUBLE` (tagged, so whole numbers stay doubles).
    public var fieldValue: FieldValue { .double(self) }
    /// Reads `DOUBLE`.
    public init?(fieldValue: FieldValue) {
        guard case .double(let value) = fieldValue else { return nil }
        self = value
    }
    /// `DOUBLE_LIST`.
    public static func listFieldValue(_ elements: [Double]) -> FieldValue { .doubleList(elements) }
    /// Reads `DOUBLE_LIST` (or an empty untyped list).
    public static func elements(of fieldValue: FieldValue) -> [Double]? {
        switch fieldValue {
        case .doubleList(let values): values
        case .emptyList: []
        default: nil
        }
    }
}

extension Bool: RecordValue {
    /// `INT64` 1 or 0 (CloudKit has no Boolean schema type).
    public var fieldValue: FieldValue { .int64(self ? 1 : 0) }
    /// Reads `INT64` 0 or 1.
    public init?(fieldValue: FieldValue) {
        switch fieldValue {
        case .int64(0): self = false
        case .int64(1): self = true
        default: return nil
        }
    }
}

extension Date: RecordListElement, QueryOrderable {
    /// `TIMESTAMP`, rounded to whole milliseconds.
    public var fieldValue: FieldValue { .timestamp(Timestamp(self)) }
    /// Reads `TIMESTAMP`.
    public init?(fieldValue: FieldValue) {
        guard case .timestamp(let value) = fieldValue else { return nil }
        self = value.date
    }
    /// `TIMESTAMP_LIST`.
    public static func listFieldValue(_ elements: [Date]) -> FieldValue { .timestampList(elements.map(Timestamp.init)) }
    /// Reads `TIMESTAMP_LIST` (or an empty untyped list).
    public static func elements(of fieldValue: FieldValue) -> [Date]? {
        switch fieldValue {
        case .timestampList(let values): values.map(\.date)
        case .emptyList: []
        default: nil
        }
    }
}

extension Data: RecordListElement {
    /// `BYTES`.
    public var fieldValue: FieldValue { .bytes(self) }
    /// Reads `BYTES`.
    public init?(fieldValue: FieldValue) {
        guard case .bytes(let value) = fieldValue else { return nil }
        self = value
    }
    /// `BYTES_LIST`.
    public static func listFieldValue(_ elements: [Data]) -> FieldValue { .bytesList(elements) }
    /// Reads `BYTES_LIST` (or an empty untyped list).
    public static func elements(of fieldValue: FieldValue) -> [Data]? {
        switch fieldValue {
        case .bytesList(let values): values
        case .emptyList: []
        default: nil
        }
    }
}

extension Reference: RecordListElement {
    /// `REFERENCE`.
    public var fieldValue: FieldValue { .reference(self) }
    /// Reads `REFERENCE`.
    public init?(fieldValue: FieldValue) {
        guard case .reference(let value) = fieldValue else { return nil }
        self = value
    }
    /// `REFERENCE_LIST`.
    public static func listFieldValue(_ elements: [Reference]) -> FieldValue { .referenceList(elements) }
    /// Reads `REFERENCE_LIST` (or an empty untyped list).
    public static func elements(of fieldValue: FieldValue) -> [Reference]? {
        switch fieldValue {
        case .referenceList(let values): values
        case .emptyList: []
        default: nil
        }
    }
}

extension Location: RecordListElement {
    /// `LOCATION`.
    public var fieldValue: FieldValue { .location(self) }
    /// Reads `LOCATION`.
    public init?(fieldValue: FieldValue) {
        guard case .location(let value) = fieldValue else { return nil }
        self = value
    }
    /// `LOCATION_LIST`.
    public static func listFieldValue(_ elements: [Location]) -> FieldValue { .locationList(elements) }
    /// Reads `LOCATION_LIST` (or an empty untyped list).
    public static func elements(of fieldValue: FieldValue) -> [Location]? {
        switch fieldValue {
        case .locationList(let values): values
        case .emptyList: []
        default: nil
        }
    }
}

extension Asset: RecordListElement {
    /// `ASSETID`.
    public var fieldValue: FieldValue { .asset(self) }
    /// Reads `ASSETID`.
    public init?(fieldValue: FieldValue) {
        guard case .asset(let value) = fieldValue else { return nil }
        self = value
    }
    /// `ASSETID_LIST`.
    public static func listFieldValue(_ elements: [Asset]) -> FieldValue { .assetList(elements) }
    /// Reads `ASSETID_LIST` (or an empty untyped list).
    public static func elements(of fieldValue: FieldValue) -> [Asset]? {
        switch fieldValue {
        case .assetList(let values): values
        case .emptyList: []
        default: nil
        }
    }
}

extension Array: RecordValue where Element: RecordListElement {
    /// The list field value of the element type (`STRING_LIST`, `INT64_LIST`, …).
    public var fieldValue: FieldValue { Element.listFieldValue(self) }
    /// Reads a list of the element type.
    public init?(fieldValue: FieldValue) {
        guard let elements = Element.elements(of: fieldValue) else { return nil }
        self = elements
    }
}
