import Foundation
@testable public import StratusServer
public import StratusWire

/// The records every query of the fuzzer runs over: every field type, with missing fields, empty
/// values, extremes, look-alike strings and lists with repeats.
public enum SeedRecords {
    /// The records, all of type `Item`.
    public static let records: [Record] = [
        item(
            "i1",
            [
                "title": .string("Buy oat milk"), "count": .int64(1), "price": .double(1.5), "due": time(1000),
                "owner": reference("u1"), "place": .location(Location(latitude: 48.8566, longitude: 2.3522)),
                "tags": .stringList(["work", "urgent"]), "scores": .int64List([1, 2]), "data": .bytes(Data([1, 2])),
            ]),
        item(
            "i2",
            [
                "title": .string("Walk the dog"), "count": .int64(2), "price": .double(2.5), "due": time(2000),
                "owner": reference("u2"), "place": .location(Location(latitude: 51.5074, longitude: -0.1278)),
                "tags": .stringList(["home"]), "scores": .int64List([2, 3]), "data": .bytes(Data([3])),
            ]),
        item(
            "i3",
            [
                "title": .string("Milk run"), "count": .int64(3), "price": .double(3.5), "due": time(3000), "owner": reference("u1"),
                "place": .location(Location(latitude: 48.8049, longitude: 2.1204)), "tags": .stringList(["work", "home"]),
                "scores": .int64List([5]),
            ]),
        item(
            "i4",
            [
                "title": .string("Oatmeal recipe"), "count": .int64(4), "price": .double(4.5), "due": time(4000),
                "place": .location(Location(latitude: 35.6762, longitude: 139.6503)), "tags": .stringList([]),
            ]),
        item("i5", ["count": .int64(5)]),
        item(
            "i6",
            [
                "title": .string(""), "count": .int64(-7), "price": .double(-0.25), "due": time(-86_400_000),
                "tags": .stringList(["work", "work", ""]), "scores": .int64List([]), "data": .bytes(Data()),
            ]),
        item(
            "i7",
            [
                "title": .string("Ünïcode straße naïve"), "count": .int64(Int64.max), "price": .double(1e300), "due": time(253_402_300_799_000),
                "owner": reference("i1"), "tags": .stringList(["Work", "ur", "urgent!"]), "scores": .int64List([Int64.min, 0, 2]),
            ]),
        item(
            "i8",
            [
                "title": .string("milk  Milk\tMILK"), "count": .int64(0), "price": .double(0), "due": time(0),
                "place": .location(Location(latitude: -89.9, longitude: -179.9)), "tags": .stringList(["a", "b", "c", "d"]),
                "scores": .int64List([7, 7, 7]), "data": .bytes(Data([0, 255])),
            ]),
    ]

    /// A record of type `Item`.
    public static func item(_ name: String, _ fields: [String: FieldValue]) -> Record {
        Record(recordName: name, recordType: "Item", fields: fields)
    }

    /// A timestamp field.
    public static func time(_ milliseconds: Int64) -> FieldValue { .timestamp(Timestamp(millisecondsSince1970: milliseconds)) }

    /// A reference field with no action.
    public static func reference(_ name: String) -> FieldValue { .reference(Reference(recordName: name, action: ReferenceAction.none)) }

    /// The in-memory form of a saved record, for ``RecordFilterEvaluator``.
    public static func stored(_ record: Record) -> StoredRecord? {
        guard let name = record.recordName, let type = record.recordType, let created = record.created, let modified = record.modified else {
            return nil
        }
        return StoredRecord(
            zoneRowID: 0, recordName: name, recordType: type, changeTag: record.recordChangeTag?.rawValue ?? "",
            fields: record.fields ?? [:],
            created: .init(timestamp: created.timestamp.millisecondsSince1970, userRecordName: created.userRecordName ?? "", deviceID: ""),
            modified: .init(timestamp: modified.timestamp.millisecondsSince1970, userRecordName: modified.userRecordName ?? "", deviceID: ""),
            changeSequence: 0, isDeleted: false)
    }
}
