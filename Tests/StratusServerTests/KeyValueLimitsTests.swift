import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// The key-value store's limits, enforced by the server in the reserved zone: each at exactly the
/// limit (accepted) and one past it (`QUOTA_EXCEEDED` with a reason, nothing written).
@Suite struct KeyValueLimitsTests {
    static let zone = KeyValueContract.zoneName

    /// A key record with a `BYTES` value of `size` bytes.
    static func put(_ key: String, size: Int) -> RecordOperation {
        .forceReplace(
            Record(
                recordName: key, recordType: KeyValueContract.recordType,
                fields: [KeyValueContract.valueField: .bytes(Data(repeating: 0x61, count: size))]))
    }

    private func withKeyValueServer(_ body: (TestCloudKitServer) async throws -> Void) async throws {
        try await withServer(.sqlite) { server in
            try await server.createZones([Self.zone])
            try await body(server)
        }
    }

    /// Asserts one failed item is QUOTA_EXCEEDED with a reason naming the limit and the record is absent.
    private func expectRefused(
        _ results: [RecordResult], mentioning word: String, absent key: String, _ server: TestCloudKitServer
    )
        async throws
    {
        #expect(results.first?.code == .quotaExceeded)
        #expect(results.first?.error?.reason?.contains(word) == true, "reason: \(String(describing: results.first?.error?.reason))")
        #expect(try await server.lookup([key], zone: Self.zone).first?.code == .notFound)
    }

    @Test func keyOfSixtyFourBytesIsAcceptedAndSixtyFiveRefused() async throws {
        try await withKeyValueServer { server in
            let exact = String(repeating: "k", count: 64)
            #expect(try await server.modify([Self.put(exact, size: 1)], zone: Self.zone).first?.record != nil)
            let past = String(repeating: "k", count: 65)
            try await expectRefused(try await server.modify([Self.put(past, size: 1)], zone: Self.zone), mentioning: "64", absent: past, server)
            // Multi-byte characters count in UTF-8 bytes: 33 × "é" = 66 bytes.
            let accented = String(repeating: "é", count: 33)
            #expect(try await server.modify([Self.put(accented, size: 1)], zone: Self.zone).first?.code == .quotaExceeded)
        }
    }

    @Test func valueOf256KBIsAcceptedAndOneByteMoreRefused() async throws {
        try await withKeyValueServer { server in
            let limit = KeyValueContract.Limits.maximumValueBytes
            #expect(try await server.modify([Self.put("exact", size: limit)], zone: Self.zone).first?.record != nil)
            try await expectRefused(
                try await server.modify([Self.put("past", size: limit + 1)], zone: Self.zone), mentioning: "\(limit)", absent: "past", server)
            // Growing an existing key past the limit leaves the old value in place.
            #expect(try await server.modify([Self.put("exact", size: limit + 1)], zone: Self.zone).first?.code == .quotaExceeded)
            let kept = try await server.lookup(["exact"], zone: Self.zone).first?.record?.fields?[KeyValueContract.valueField]
            #expect(kept == .bytes(Data(repeating: 0x61, count: limit)))
        }
    }

    @Test func keyCountOf1024IsAcceptedAndTheNextRefused() async throws {
        try await withKeyValueServer { server in
            let keys = (0..<KeyValueContract.Limits.maximumKeys).map { "key\($0)" }
            for start in stride(from: 0, to: keys.count, by: 200) {
                let results = try await server.modify(keys[start..<min(start + 200, keys.count)].map { Self.put($0, size: 1) }, zone: Self.zone)
                #expect(results.allSatisfy { $0.record != nil })
            }
            try await expectRefused(
                try await server.modify([Self.put("one-more", size: 1)], zone: Self.zone), mentioning: "1024", absent: "one-more", server)
            // Replacing an existing key is not a new key.
            #expect(try await server.modify([Self.put("key0", size: 2)], zone: Self.zone).first?.record != nil)
            // After a deletion there is room again.
            _ = try await server.modify([.forceDelete(RecordID(recordName: "key1"))], zone: Self.zone)
            #expect(try await server.modify([Self.put("one-more", size: 1)], zone: Self.zone).first?.record != nil)
        }
    }

    @Test func totalOfOneMegabyteIsAcceptedAndOneByteMoreRefused() async throws {
        try await withKeyValueServer { server in
            // Four keys of 2 bytes with values of 262,142 bytes: exactly 1,048,576 bytes.
            let size = KeyValueContract.Limits.maximumTotalBytes / 4 - 2
            for index in 0..<4 {
                #expect(try await server.modify([Self.put("k\(index)", size: size)], zone: Self.zone).first?.record != nil)
            }
            try await expectRefused(
                try await server.modify([Self.put("k4", size: 0)], zone: Self.zone), mentioning: "\(KeyValueContract.Limits.maximumTotalBytes)",
                absent: "k4", server)
            #expect(try await server.modify([Self.put("k3", size: size + 1)], zone: Self.zone).first?.code == .quotaExceeded)
            #expect(try await server.modify([Self.put("k3", size: size)], zone: Self.zone).first?.record != nil)
        }
    }

    @Test func aBatchIsCheckedOperationByOperation() async throws {
        try await withKeyValueServer { server in
            let size = KeyValueContract.Limits.maximumValueBytes
            // Five full values in one non-atomic batch: the fifth would pass 1 MB (keys add bytes too).
            let results = try await server.modify((0..<5).map { Self.put("b\($0)", size: size - 8) }, zone: Self.zone, atomic: false)
            #expect(results.prefix(4).allSatisfy { $0.record != nil })
            #expect(results.last?.code == .quotaExceeded)
            // Atomically, one violation writes nothing.
            let atomic = try await server.modify(
                [Self.put("a0", size: 1), Self.put(String(repeating: "x", count: 65), size: 1)], zone: Self.zone, atomic: true)
            #expect(atomic.allSatisfy { $0.record == nil })
            #expect(try await server.lookup(["a0"], zone: Self.zone).first?.code == .notFound)
        }
    }

    @Test func otherZonesHaveNoKeyValueLimits() async throws {
        try await withServer(.sqlite) { server in
            try await server.createZones(["Other"])
            let long = String(repeating: "k", count: 65)
            #expect(try await server.modify([Self.put(long, size: KeyValueContract.Limits.maximumValueBytes + 1)], zone: "Other").first?.record != nil)
        }
    }
}
