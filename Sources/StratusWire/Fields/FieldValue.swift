public import Foundation

/// The value of one record field: the Record Field dictionary `{"value": …, "type": "…"}`.
///
/// One case per CloudKit type and per list type. Encoding **always** writes the `type` tag, so
/// TIMESTAMP, BYTES and whole-number DOUBLE values are never mistaken for INT64 or STRING.
/// Decoding switches on the tag; untagged values (which third-party clients send) are inferred
/// structurally, optionally guided by the schema type — see ``init(json:expecting:codingPath:)``.
///
/// ```swift
/// record.fields?["due"] = .timestamp(Timestamp(Date()))
/// record.fields?["tags"] = .stringList(["work", "urgent"])
/// let data = try WireCoding.encode(record)   // … "due":{"type":"TIMESTAMP","value":…} …
/// ```
///
/// CloudKit reference: Types ("Record Field Dictionary"); Apple's CloudKit Web Services Reference: “Record field (field value) dictionary”.
public enum FieldValue: Hashable, Sendable {
    /// `STRING`.
    case string(String)
    /// `INT64`; booleans are stored as 0/1.
    case int64(Int64)
    /// `DOUBLE`.
    case double(Double)
    /// `TIMESTAMP`: whole milliseconds since 1970.
    case timestamp(Timestamp)
    /// `BYTES`, base64 on the wire.
    case bytes(Data)
    /// `REFERENCE`.
    case reference(Reference)
    /// `ASSETID`.
    case asset(Asset)
    /// `LOCATION`.
    case location(Location)
    /// `STRING_LIST`.
    case stringList([String])
    /// `INT64_LIST`.
    case int64List([Int64])
    /// `DOUBLE_LIST`.
    case doubleList([Double])
    /// `TIMESTAMP_LIST`.
    case timestampList([Timestamp])
    /// `BYTES_LIST`.
    case bytesList([Data])
    /// `REFERENCE_LIST`.
    case referenceList([Reference])
    /// `ASSETID_LIST`.
    case assetList([Asset])
    /// `LOCATION_LIST`.
    case locationList([Location])
    /// `UNKNOWN_LIST`: an empty list whose element type is unknown (an untagged `[]`).
    case emptyList

    /// The value's type tag.
    public var type: FieldType {
        switch self {
        case .string: .string
        case .int64: .int64
        case .double: .double
        case .timestamp: .timestamp
        case .bytes: .bytes
        case .reference: .reference
        case .asset: .asset
        case .location: .location
        case .stringList: .stringList
        case .int64List: .int64List
        case .doubleList: .doubleList
        case .timestampList: .timestampList
        case .bytesList: .bytesList
        case .referenceList: .referenceList
        case .assetList: .assetList
        case .locationList: .locationList
        case .emptyList: .unknownList
        }
    }

    /// Creates a value from a `Bool`, stored as INT64 0 or 1 (CloudKit has no boolean type).
    ///
    /// - Parameter bool: The boolean.
    /// - Returns: `.int64(1)` or `.int64(0)`.
    public static func bool(_ bool: Bool) -> FieldValue { .int64(bool ? 1 : 0) }

    /// Creates a TIMESTAMP from a date, rounded to whole milliseconds.
    ///
    /// - Parameter date: The date.
    /// - Returns: A `.timestamp` value.
    public static func date(_ date: Date) -> FieldValue { .timestamp(Timestamp(date)) }

    /// The string, if this is a STRING.
    public var stringValue: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The integer, if this is an INT64.
    public var int64Value: Int64? {
        guard case .int64(let value) = self else { return nil }
        return value
    }

    /// The number, if this is a DOUBLE.
    public var doubleValue: Double? {
        guard case .double(let value) = self else { return nil }
        return value
    }

    /// The timestamp, if this is a TIMESTAMP.
    public var timestampValue: Timestamp? {
        guard case .timestamp(let value) = self else { return nil }
        return value
    }

    /// The bytes, if this is BYTES.
    public var bytesValue: Data? {
        guard case .bytes(let value) = self else { return nil }
        return value
    }

    /// The reference, if this is a REFERENCE.
    public var referenceValue: Reference? {
        guard case .reference(let value) = self else { return nil }
        return value
    }

    /// The asset, if this is an ASSETID.
    public var assetValue: Asset? {
        guard case .asset(let value) = self else { return nil }
        return value
    }

    /// The location, if this is a LOCATION.
    public var locationValue: Location? {
        guard case .location(let value) = self else { return nil }
        return value
    }
}
