import Foundation
import StratusClient
import StratusWire
import Testing

@Suite struct RecordTests {
    let id = RecordID(recordName: "n1", zoneID: ZoneID(zoneName: "Inbox"))

    /// Every field type and list type reads back through the typed subscript as it was written.
    @Test func typedSubscriptRoundTripsEveryFieldType() throws {
        var record = Record(recordType: "Note", recordID: id)
        let date = Date(timeIntervalSince1970: 1_750_000_000.123)
        let location = Location(latitude: 48.85, longitude: 2.35)
        let reference = Reference(recordName: "parent", action: .deleteSelf)
        let asset = Asset(fileChecksum: "abc", size: 3)
        record["string"] = "x"
        record["int"] = 3
        record["int64"] = Int64(1) << 60
        record["double"] = 2.0
        record["bool"] = true
        record["date"] = date
        record["bytes"] = Data([1, 2, 3])
        record["reference"] = reference
        record["location"] = location
        record["asset"] = asset
        record["strings"] = ["a", "b"]
        record["ints"] = [1, 2]
        record["doubles"] = [0.5]
        record["dates"] = [date]
        record["blobs"] = [Data([9])]
        record["references"] = [reference]
        record["locations"] = [location]
        record["assets"] = [asset]

        #expect(record["string"] == "x")
        #expect(record["int"] == 3)
        #expect(record["int64"] == Int64(1) << 60)
        #expect(record["double"] == 2.0)
        #expect(record["bool"] == true)
        #expect((record["date"] as Date?)?.timeIntervalSince1970 == 1_750_000_000.123)
        #expect(record["bytes"] == Data([1, 2, 3]))
        #expect(record["reference"] == reference)
        #expect(record["location"] == location)
        #expect(record["asset"] == asset)
        #expect(record["strings"] == ["a", "b"])
        #expect(record["ints"] == [1, 2])
        #expect(record["doubles"] == [0.5])
        #expect(record["dates"] == [Date(timeIntervalSince1970: 1_750_000_000.123)])
        #expect(record["blobs"] == [Data([9])])
        #expect(record["references"] == [reference])
        #expect(record["locations"] == [location])
        #expect(record["assets"] == [asset])
        #expect(record["double"]?.type == .double)
        #expect(record["date"]?.type == .timestamp)
        #expect(record["ints"]?.type == .int64List)
        #expect(record.changedKeys().count == 18)
    }

    /// Reading a field as the wrong type gives nil rather than a guess.
    @Test func typedGettersAreStrict() {
        var record = Record(recordType: "Note", recordID: id)
        record["count"] = 3
        record["flag"] = 2
        #expect(record.value(forKey: "count", as: Double.self) == nil)
        #expect(record.value(forKey: "count", as: String.self) == nil)
        #expect(record.value(forKey: "flag", as: Bool.self) == nil)
        #expect(record.value(forKey: "missing", as: Int.self) == nil)
        #expect(record.value(forKey: "count", as: Int.self) == 3)
    }

    /// Setting and removing keys marks them changed; the untyped subscript accepts nil.
    @Test func changedKeysTrackSetsAndRemovals() {
        var record = Record(recordType: "Note", recordID: id)
        #expect(record.changedKeys().isEmpty)
        record["a"] = "1"
        record["b"] = nil
        #expect(record.changedKeys() == ["a", "b"])
        #expect(record.allKeys() == ["a"])
    }

    /// Each save policy maps to the documented records/modify operation.
    @Test func savePoliciesChooseTheOperation() throws {
        var fresh = Record(recordType: "Note", recordID: id)
        fresh["title"] = "x"
        #expect(fresh.saveOperation(policy: .ifServerRecordUnchanged).operationType == .create)

        let wire = StratusWire.Record(
            recordName: "n1", recordType: "Note", recordChangeTag: "7", fields: ["title": .string("x"), "body": .string("y")])
        var fetched = try Record(wire: wire, zoneID: id.zoneID)
        #expect(fetched.changedKeys().isEmpty)
        fetched["title"] = "new"

        let update = fetched.saveOperation(policy: .ifServerRecordUnchanged)
        #expect(update.operationType == .update)
        #expect(update.record.recordChangeTag == "7")
        #expect(update.record.fields == ["title": .string("new")])

        let changed = fetched.saveOperation(policy: .changedKeys)
        #expect(changed.operationType == .forceUpdate)
        #expect(changed.record.fields == ["title": .string("new")])
        #expect(changed.record.recordType == "Note")

        let all = fetched.saveOperation(policy: .allKeys)
        #expect(all.operationType == .forceReplace)
        #expect(all.record.fields == ["title": .string("new"), "body": .string("y")])

        fetched["body"] = nil
        #expect(fetched.saveOperation(policy: .ifServerRecordUnchanged).operationType == .replace)
        #expect(fetched.saveOperation(policy: .changedKeys).operationType == .forceReplace)
    }

    /// A fetched record carries the server's metadata and remembers its fetched state as the ancestor.
    @Test func wireConversionKeepsMetadataAndAncestor() throws {
        var wire = StratusWire.Record(recordName: "n1", recordType: "Note", recordChangeTag: "k", fields: ["title": .string("old")])
        wire.created = RecordTimestamp(timestamp: Timestamp(millisecondsSince1970: 1000), userRecordName: "_a", deviceID: "d1")
        wire.modified = RecordTimestamp(timestamp: Timestamp(millisecondsSince1970: 2000), userRecordName: "_b", deviceID: "d2")
        var record = try Record(wire: wire, zoneID: id.zoneID)
        #expect(record.recordID == id)
        #expect(record.creationDate == Date(timeIntervalSince1970: 1))
        #expect(record.modificationDate == Date(timeIntervalSince1970: 2))
        #expect(record.creatorUserRecordName == "_a")
        #expect(record.lastModifiedUserRecordName == "_b")
        #expect(record.modifiedByDevice == "d2")
        record["title"] = "new"
        #expect(record.ancestor?["title"] == "old")
        #expect(record.ancestor?.recordChangeTag == "k")
        #expect(throws: StratusError.self) { try Record(wire: StratusWire.Record(recordType: "Note"), zoneID: id.zoneID) }
    }

    /// A local file is only ever named by this process: an asset decoded from the network never is one,
    /// and a download URL that is not http(s) is never fetched.
    @Test func assetsFromTheWireAreNeverLocalFiles() throws {
        let hostile =
            #"{"recordName":"n1","recordType":"Note","fields":{"a":{"type":"ASSETID","#
            + #""value":{"downloadURL":"file:///etc/passwd"}}}}"#
        let wire = try WireCoding.decode(StratusWire.Record.self, from: Data(hostile.utf8))
        let record = try Record(wire: wire, zoneID: id.zoneID)
        let asset = try #require(record.value(forKey: "a", as: Asset.self))
        #expect(asset.localFileURL == nil && asset.resolvedDownloadURL() == nil)
        for url in ["ftp://example.com/${f}", "data:text/plain,hi", "gopher://x/${f}"] {
            #expect(Asset(downloadURL: url).resolvedDownloadURL() == nil, "\(url)")
        }
        let https = Asset(downloadURL: "https://cdn.example/a/${f}").resolvedDownloadURL(fileName: "x y")
        #expect(https?.absoluteString == "https://cdn.example/a/x%20y")
        let local = Asset(fileURL: URL(fileURLWithPath: "/tmp/cat.jpg"))
        #expect(local.localFileURL?.path == "/tmp/cat.jpg")
        #expect(!String(decoding: try WireCoding.encode(local), as: UTF8.self).contains("cat.jpg"), "a local path never goes on the wire")
    }
}
