import BenchSupport
import Foundation
import StratusServer
import StratusServerSQLite
import StratusWire

/// Where a record's time goes: the pieces of a batched create and of a change-feed page,
/// each measured alone in this process (no HTTP), in µs per record, the fastest of `repeats` batches
/// (the least disturbed by other work on a shared machine).
///
/// - request decode: `WireCoding.decode(RecordsModify.Request)` of a 200-create body.
/// - store write: `SQLiteRecordStore.write` doing what `RecordModifier` asks of the store per create
///   (savepoint, existing-record lookup, next change sequence, `putRecord` with its field blob), 200 per transaction.
/// - response encode: `WireCoding.encode(RecordsModify.Response)` of 200 full records.
/// - store page read: `recordChanges(limit: 200)` in a read snapshot, with field-blob decode.
/// - feed response encode: `WireCoding.encode(RecordsChanges.Response)` of 200 records.
/// - response encode, direct JSONValue (prototype): the same bytes as "response encode", built as a
///   `JSONValue` tree by hand and serialized (the prototype that motivated StratusWire's direct writer,
///   which `WireCoding.encode` now uses for records-bearing bodies).
/// - Codable field encode / decode: `WireCoding` on one record's fields (a fields dictionary now takes
///   the direct writer on encode; decode of a bare dictionary still goes through Codable).
enum Breakdown {
    struct Line {
        var name: String
        var microsecondsPerRecord: Double
    }

    static func measure(batch: Int, repeats: Int) async throws -> [Line] {
        let directory = try TemporaryPath(prefix: "records-bench-breakdown")
        defer { directory.remove() }
        let store = try await SQLiteRecordStore.open(path: directory.path("store.sqlite"))
        let database = DatabaseKey(container: "c", environment: .development, scope: .private, owner: "_owner")
        let zone = try await store.write { tx in
            _ = try tx.createContainer("c", createdAt: 0)
            return try tx.createZone(named: "z", in: database, createdAt: 0)
        }
        let stamp = StoredRecord.Stamp(timestamp: Payloads.base, userRecordName: "_owner", deviceID: "web")
        var samples: [String: [Double]] = [:]
        func time(_ name: String, _ body: () throws -> Void) rethrows {
            let start = monotonicNanoseconds()
            try body()
            samples[name, default: []].append(Double(monotonicNanoseconds() - start) / 1000 / Double(batch))
        }

        for round in 0..<repeats {
            let first = round * batch
            let body = Data(try Payloads.createBody(prefix: "b", indices: first..<(first + batch), zone: "z"))
            var request: RecordsModify.Request?
            try time("request decode") { request = try WireCoding.decode(RecordsModify.Request.self, from: body) }
            let records = (request?.operations ?? []).map(\.record)

            try time("Codable field encode") { for record in records { _ = try WireCoding.encode(record.fields ?? [:]) } }

            let start = monotonicNanoseconds()
            let stored = try await write(records, to: store, zone: zone.rowID, stamp: stamp)
            samples["store write", default: []].append(Double(monotonicNanoseconds() - start) / 1000 / Double(batch))

            let wire = stored.map(wireRecord)
            var viaCodable = Data()
            try time("response encode") { viaCodable = try WireCoding.encode(RecordsModify.Response(records: wire.map(RecordResult.record))) }
            var direct = Data()
            try time("response encode, direct JSONValue (prototype)") {
                direct = try JSONValue.object(["records": .array(wire.map(json))]).serialized()
            }
            guard direct == viaCodable else { throw BenchFailure("the direct JSONValue prototype does not write the wire bytes") }

            let blobs = try stored.map { try WireCoding.encode($0.fields) }
            try time("Codable field decode") { for blob in blobs { _ = try WireCoding.decode([String: FieldValue].self, from: blob) } }

            let readStart = monotonicNanoseconds()
            let page = try await store.read { tx in
                try tx.recordChanges(inZone: zone.rowID, after: Int64(first), limit: batch, recordTypes: nil)
            }
            samples["store page read", default: []].append(Double(monotonicNanoseconds() - readStart) / 1000 / Double(batch))
            guard page.count == batch else { throw BenchFailure("breakdown read \(page.count) of \(batch) records") }
            let feed = RecordsChanges.Response(
                records: page.map { .record(wireRecord($0)) }, syncToken: SyncToken(String(repeating: "t", count: 90)), moreComing: true)
            try time("feed response encode") { _ = try WireCoding.encode(feed) }
        }
        try await store.close()
        let order = [
            "request decode", "store write", "Codable field encode", "response encode", "response encode, direct JSONValue (prototype)", "store page read",
            "Codable field decode", "feed response encode",
        ]
        return order.map { Line(name: $0, microsecondsPerRecord: samples[$0]?.min() ?? .nan) }
    }

    /// Saves the records in one transaction, a savepoint each, as `records/modify` does (read, sequence, put).
    private static func write(
        _ records: [Record], to store: SQLiteRecordStore, zone: Int64, stamp: StoredRecord.Stamp
    ) async throws -> [StoredRecord] {
        try await store.write { tx -> [StoredRecord] in
            try records.map { incoming in
                try tx.savepoint {
                    let name = incoming.recordName ?? ""
                    _ = try tx.record(named: name, inZone: zone)
                    let sequence = try tx.nextChangeSequence(inZone: zone)
                    let record = StoredRecord(
                        zoneRowID: zone, recordName: name, recordType: incoming.recordType ?? "", changeTag: String(sequence, radix: 36),
                        fields: incoming.fields ?? [:], created: stamp, modified: stamp, changeSequence: sequence
                    )
                    try tx.putRecord(record, references: [])
                    return record
                }
            }
        }
    }

    /// The JSON of a wire record with the keys `wireRecord` sets, built without Codable.
    private static func json(_ record: Record) -> JSONValue {
        func stamp(_ stamp: RecordTimestamp?) -> JSONValue? {
            guard let stamp else { return nil }
            var members: [String: JSONValue] = ["timestamp": .integer(stamp.timestamp.millisecondsSince1970)]
            if let user = stamp.userRecordName { members["userRecordName"] = .string(user) }
            if let device = stamp.deviceID { members["deviceID"] = .string(device) }
            return .object(members)
        }
        var members: [String: JSONValue] = [:]
        members["recordName"] = record.recordName.map(JSONValue.string)
        members["recordType"] = record.recordType.map(JSONValue.string)
        members["recordChangeTag"] = record.recordChangeTag.map { .string($0.rawValue) }
        members["fields"] = record.fields.map { fields in
            .object(
                fields.mapValues { value -> JSONValue in
                    switch value {
                    case .string(let string): .object(["type": .string("STRING"), "value": .string(string)])
                    case .int64(let integer): .object(["type": .string("INT64"), "value": .integer(integer)])
                    case .timestamp(let timestamp): .object(["type": .string("TIMESTAMP"), "value": .integer(timestamp.millisecondsSince1970)])
                    default: (try? value.json()) ?? .null
                    }
                })
        }
        members["created"] = stamp(record.created)
        members["modified"] = stamp(record.modified)
        members["deleted"] = record.deleted.map(JSONValue.bool)
        members["zoneID"] = record.zoneID.map { zone in
            var id: [String: JSONValue] = ["zoneName": .string(zone.zoneName)]
            if let owner = zone.ownerRecordName { id["ownerRecordName"] = .string(owner) }
            if let type = zone.zoneType { id["zoneType"] = .string(type) }
            return .object(id)
        }
        return .object(members)
    }

    /// The wire record `RecordPresenter` makes: fields, tag, zone, created/modified stamps, `deleted: false`.
    private static func wireRecord(_ record: StoredRecord) -> Record {
        var wire = Record(
            recordName: record.recordName, recordType: record.recordType, recordChangeTag: ChangeTag(record.changeTag),
            fields: record.fields, zoneID: ZoneID(zoneName: "z")
        )
        wire.created = RecordTimestamp(
            timestamp: Timestamp(millisecondsSince1970: record.created.timestamp), userRecordName: record.created.userRecordName,
            deviceID: record.created.deviceID)
        wire.modified = RecordTimestamp(
            timestamp: Timestamp(millisecondsSince1970: record.modified.timestamp), userRecordName: record.modified.userRecordName,
            deviceID: record.modified.deviceID)
        wire.deleted = false
        return wire
    }
}
