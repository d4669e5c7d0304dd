import Foundation
import StratusTesting
import StratusWire

/// Random wire values covering every field type, escapes, unicode and number edge cases.
struct RandomWire {
    var rng: SeededGenerator

    init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }

    mutating func count(_ maximum: Int) -> Int { Int.random(in: 0...maximum, using: &rng) }

    mutating func pick<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &rng)] }

    static let pieces: [String] = [
        "a", "Item", "quick brown fox", " ", "/", "\\", "\"", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{00}", "\u{01}",
        "\u{1F}", "\u{7F}", "é", "e\u{301}", "中文", "😀", "👩‍👩‍👧", "\u{2028}", "${f}", "https://x.example/a?b=c&d", "0", "-1", "1e5",
        "recordName", "type", "value",
    ]

    mutating func string() -> String {
        var text = ""
        for _ in 0..<count(4) { text += pick(Self.pieces) }
        return text
    }

    /// A string for an object key or field name: like ``string()`` but always in NFC.
    ///
    /// NB: Swift's `String` `<` is not a strict total order across normalization forms (for example
    /// `"e\u{301}"` and `"\u{E9}\t"` are neither equal nor ordered), so for such key sets the order of
    /// sorted keys, in the reference writer as in the direct one, depends on the dictionary's
    /// iteration order, which is seeded per process. Keys in NFC sort deterministically.
    mutating func key() -> String {
        var text = ""
        for _ in 0..<count(4) { text += pick(Self.pieces.filter { !$0.unicodeScalars.contains("\u{301}") }) }
        return text
    }

    mutating func int64() -> Int64 {
        if chance(30) { return pick([0, 1, -1, .max, .min, 9_007_199_254_740_993, -9_007_199_254_740_993, 1_747_999_812_000]) }
        return Int64.random(in: .min ... .max, using: &rng) >> Int64.random(in: 0...62, using: &rng)
    }

    mutating func double() -> Double {
        if chance(40) {
            return pick([
                0.0, -0.0, 2.0, -2.0, 1e-7, 1e20, 1e300, -1e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1, 1.0 / 3.0, 9_007_199_254_740_993.0,
            ])
        }
        if chance(30) { return Double(Int.random(in: -1_000_000...1_000_000, using: &rng)) }
        return Double(bitPattern: UInt64.random(in: 0 ... .max, using: &rng) & ~(UInt64(0x7FF) << 52) | (UInt64.random(in: 1...0x7FE, using: &rng) << 52))
    }

    mutating func timestamp() -> Timestamp { Timestamp(millisecondsSince1970: int64()) }

    mutating func data() -> Data { Data((0..<count(12)).map { _ in UInt8.random(in: 0 ... .max, using: &rng) }) }

    mutating func maybe<T>(_ make: (inout RandomWire) -> T) -> T? { chance(50) ? make(&self) : nil }

    mutating func zoneID() -> ZoneID {
        ZoneID(zoneName: string(), ownerRecordName: maybe { $0.string() }, zoneType: maybe { $0.string() })
    }

    mutating func reference() -> Reference {
        Reference(
            recordName: string(), zoneID: maybe { $0.zoneID() },
            action: maybe { ReferenceAction(rawValue: $0.pick(["NONE", "DELETE_SELF", "VALIDATE", $0.string()])) })
    }

    mutating func asset() -> Asset {
        Asset(
            fileChecksum: maybe { $0.string() }, size: maybe { $0.int64() }, referenceChecksum: maybe { $0.string() },
            wrappingKey: maybe { $0.string() }, receipt: maybe { $0.string() }, downloadURL: maybe { $0.string() })
    }

    mutating func location() -> Location {
        Location(
            latitude: double(), longitude: double(), horizontalAccuracy: maybe { $0.double() }, verticalAccuracy: maybe { $0.double() },
            altitude: maybe { $0.double() }, speed: maybe { $0.double() }, course: maybe { $0.double() }, timestamp: maybe { $0.timestamp() })
    }

    mutating func list<T>(_ make: (inout RandomWire) -> T) -> [T] { (0..<count(3)).map { _ in make(&self) } }

    mutating func fieldValue() -> FieldValue {
        switch Int.random(in: 0..<17, using: &rng) {
        case 0: .string(string())
        case 1: .int64(int64())
        case 2: .double(double())
        case 3: .timestamp(timestamp())
        case 4: .bytes(data())
        case 5: .reference(reference())
        case 6: .asset(asset())
        case 7: .location(location())
        case 8: .stringList(list { $0.string() })
        case 9: .int64List(list { $0.int64() })
        case 10: .doubleList(list { $0.double() })
        case 11: .timestampList(list { $0.timestamp() })
        case 12: .bytesList(list { $0.data() })
        case 13: .referenceList(list { $0.reference() })
        case 14: .assetList(list { $0.asset() })
        case 15: .locationList(list { $0.location() })
        default: .emptyList
        }
    }

    mutating func fields() -> [String: FieldValue] {
        var fields: [String: FieldValue] = [:]
        for _ in 0..<count(6) { fields[pick(["title", "due", "Z", "a_b", "é", "éx", "中", "with space", key()])] = fieldValue() }
        return fields
    }

    mutating func participant() -> ShareParticipant {
        ShareParticipant(
            userIdentity: maybe { UserIdentity(userRecordName: $0.string()) }, permission: maybe { _ in .readWrite },
            type: maybe { ParticipantType(rawValue: $0.string()) }, participantId: maybe { $0.string() },
            publicKeyVersion: maybe { .integer($0.int64()) })
    }

    mutating func stamp() -> RecordTimestamp {
        RecordTimestamp(timestamp: timestamp(), userRecordName: maybe { $0.string() }, deviceID: maybe { $0.string() })
    }

    /// A record with a random subset of keys; `full` also sets the share keys.
    mutating func record(full: Bool = true) -> Record {
        var record = Record(
            recordName: maybe { $0.string() }, recordType: maybe { $0.pick(["Item", "Task", $0.string()]) },
            recordChangeTag: maybe { ChangeTag($0.string()) }, fields: chance(85) ? fields() : nil, zoneID: maybe { $0.zoneID() })
        record.created = maybe { $0.stamp() }
        record.modified = maybe { $0.stamp() }
        record.deleted = maybe { $0.chance(50) }
        guard full, chance(30) else { return record }
        record.createShortGUID = maybe { $0.chance(50) }
        record.shortGUID = maybe { $0.string() }
        record.parent = maybe { Reference(recordName: $0.string()) }
        record.share = maybe { $0.reference() }
        record.forRecord = maybe { ShareRoot(recordName: $0.string(), recordChangeTag: $0.maybe { ChangeTag($0.string()) }) }
        record.publicPermission = maybe { SharePermission(rawValue: $0.string()) }
        record.participants = maybe { $0.list { $0.participant() } }
        record.owner = maybe { $0.participant() }
        record.currentUserParticipant = maybe { $0.participant() }
        return record
    }

    mutating func result() -> RecordResult {
        guard chance(20) else { return .record(record()) }
        return .error(
            RecordFetchError(
                recordName: maybe { $0.string() }, serverErrorCode: pick([.conflict, .notFound, ServerErrorCode(rawValue: string())]),
                reason: maybe { $0.string() }, retryAfter: maybe { Int($0.int64() >> 2) }, uuid: maybe { $0.string() },
                redirectURL: maybe { $0.string() }, serverRecord: maybe { $0.record() }))
    }

    mutating func operation() -> RecordOperation {
        var record = record()
        record.recordName = record.recordName ?? string()
        record.recordType = record.recordType ?? "Item"
        record.recordChangeTag = record.recordChangeTag ?? ChangeTag(string())
        let type = pick(RecordOperation.OperationType.allCases)
        // NB: every operation type accepts a record with a name, a type and a tag.
        do {
            return try RecordOperation(operationType: type, record: record, desiredKeys: maybe { $0.list { $0.string() } })
        } catch {
            preconditionFailure("a complete record must make a valid \(type) operation: \(error)")
        }
    }

    mutating func modifyRequest() -> RecordsModify.Request {
        RecordsModify.Request(
            operations: list { $0.operation() }, zoneID: maybe { $0.zoneID() }, atomic: maybe { $0.chance(50) },
            desiredKeys: maybe { $0.list { $0.string() } }, numbersAsStrings: maybe { $0.chance(50) })
    }

    /// A `changes/zone` response: zones with changes, and now and then a zone's error.
    mutating func zoneChangesResponse() -> ZoneChanges.Response {
        ZoneChanges.Response(
            zones: list { random -> ZoneChanges.ZoneResult in
                guard random.chance(80) else {
                    return .error(ZoneRecordFetchError(zoneID: random.maybe { $0.zoneID() }, serverErrorCode: .zoneNotFound, reason: random.string()))
                }
                return .changes(
                    ZoneChanges.ZoneRecords(
                        zoneID: random.zoneID(), records: random.list { $0.result() }, syncToken: SyncToken(random.string()),
                        moreComing: random.chance(50)))
            })
    }
}
