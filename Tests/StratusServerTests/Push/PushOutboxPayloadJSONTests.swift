import Foundation
@testable import StratusServer
import StratusWire
import Testing

/// The push outbox payload is written and read without `Codable`, but its bytes stay those of the
/// `Codable` reference: entries written by an older server read back, and the reference reads
/// what the direct writer stores (decision "The push outbox payload without Codable", 0007).
@Suite struct PushOutboxPayloadJSONTests {
    /// Strings that need escaping, non-ASCII text and the empty string.
    static let awkwardStrings = ["", "plain", "quote \" and \\ backslash", "tab\tnew\nline\r\u{8}\u{c}\u{1}\u{1f}", "ünïcødé – 雪 🧊", "/slash/"]

    static func fields(_ seed: Int) -> [String: FieldValue] {
        let text = awkwardStrings[seed % awkwardStrings.count]
        let stamp = Timestamp(millisecondsSince1970: 1_747_999_812_000 + Int64(seed))
        let reference = Reference(recordName: "target-\(seed)", zoneID: ZoneID(zoneName: "Zone \(text)"), action: .deleteSelf)
        let asset = Asset(fileChecksum: "sum", size: 42, referenceChecksum: "ref", wrappingKey: "key", receipt: text, downloadURL: "https://x/\(seed)")
        let location = Location(latitude: 52.5, longitude: -13.25, horizontalAccuracy: 5, altitude: 0.5, timestamp: stamp)
        var fields: [String: FieldValue] = [
            "title": .string(text), "count": .int64(-9_000_000_000 + Int64(seed)), "ratio": .double(2.0), "fraction": .double(-1e-7),
            "due": .timestamp(stamp), "blob": .bytes(Data([0, 1, 2, 255])), "folder": .reference(reference), "file": .asset(asset),
            "place": .location(location), "tags": .stringList(["a", text]), "ranks": .int64List([1, -2]), "weights": .doubleList([0.5, 3.0]),
            "dates": .timestampList([stamp]), "chunks": .bytesList([Data("x".utf8)]), "links": .referenceList([reference]),
            "files": .assetList([asset]), "places": .locationList([location]), "nothing": .emptyList,
        ]
        fields[text.isEmpty ? "e" : "key \(text)"] = .string("named awkwardly")
        return fields
    }

    static func record(_ seed: Int, type: String = "Note") -> StoredRecord {
        let text = awkwardStrings[seed % awkwardStrings.count]
        return StoredRecord(
            zoneRowID: 7, recordName: "record \(seed) \(text)", recordType: type, changeTag: "tag\(seed)", fields: fields(seed),
            created: StoredRecord.Stamp(timestamp: 1_000 + Int64(seed), userRecordName: "_user \(text)", deviceID: "device"),
            modified: StoredRecord.Stamp(timestamp: -5, userRecordName: "_user", deviceID: text),
            changeSequence: Int64(seed) * 1_000_000_007
        )
    }

    /// Creations, updates and deletions, with and without a skipped token.
    static func payloads() -> [PushOutboxPayload] {
        var counter = 0
        let makeID = { () -> String in
            counter += 1
            return "nid-\(counter)-\(awkwardStrings[counter % awkwardStrings.count])"
        }
        let changes = (0..<12).map { seed in
            switch seed % 3 {
            case 0: RecordChange(before: nil, after: record(seed))
            case 1: RecordChange(before: record(seed), after: record(seed + 100, type: "Folder"))
            default: RecordChange(before: record(seed), after: nil)
            }
        }
        return [
            PushOutboxPayload(changes, zoneRowID: 7, skippedToken: nil, makeNotificationID: makeID),
            PushOutboxPayload(changes, zoneRowID: -1, skippedToken: "token \"quoted\"", makeNotificationID: makeID),
            PushOutboxPayload([changes[0]], zoneRowID: Int64.max, skippedToken: "", makeNotificationID: makeID),
            PushOutboxPayload([], zoneRowID: 0, skippedToken: nil, makeNotificationID: makeID),
        ]
    }

    /// The direct writer stores exactly the reference's bytes.
    @Test func storedBytesAreTheReferenceEncoding() throws {
        for payload in Self.payloads() {
            let reference = Array(try WireCoding.encode(payload))
            let direct = try payload.encoded()
            #expect(direct == reference, "\(String(decoding: direct, as: UTF8.self))\n≠\n\(String(decoding: reference, as: UTF8.self))")
        }
    }

    /// The direct reader and the reference read both writers' bytes back to the same payload.
    @Test func bothReadersReadBothWriters() throws {
        for payload in Self.payloads() {
            for bytes in [try payload.encoded(), Array(try WireCoding.encode(payload))] {
                #expect(try PushOutboxPayload.decode(bytes) == payload)
                #expect(try WireCoding.decode(PushOutboxPayload.self, from: Data(bytes)) == payload)
                #expect(PushOutboxPayload(json: try JSONValue(parsing: Data(bytes))) == payload)
            }
        }
    }

    /// What the reference accepts the direct reader accepts or leaves to the reference (an unknown
    /// member, `null` for an absent optional); what the reference rejects still throws.
    @Test func unusualAndBrokenEntriesReadLikeTheReference() throws {
        let accepted = [
            #"{"changes":[],"zoneRowID":3,"future":{"x":1}}"#,
            #"{"changes":[{"notificationID":"n","before":null}],"skippedToken":null,"zoneRowID":3}"#,
        ]
        for text in accepted {
            let bytes = Array(text.utf8)
            #expect(try PushOutboxPayload.decode(bytes) == WireCoding.decode(PushOutboxPayload.self, from: Data(bytes)))
        }
        let rejected = [
            #"{"changes":[{"notificationID":1}],"zoneRowID":3}"#,
            #"{"changes":[],"zoneRowID":"3"}"#,
            #"{"changes":[{"notificationID":"n","after":{"recordName":"r"}}],"zoneRowID":3}"#,
            #"{"changes":[],"zoneRowID":3"#,
            "",
        ]
        for text in rejected {
            #expect(throws: (any Error).self, "\(text)") { try PushOutboxPayload.decode(Array(text.utf8)) }
        }
    }
}
