import Foundation
import StratusWire
import Testing

/// The key-value store's limits, as the client and the server both apply them (``KeyValueContract``).
@Suite struct KeyValueContractTests {
    typealias Limits = KeyValueContract.Limits

    /// Each limit lets its exact maximum through and refuses one more, naming the limit.
    @Test func eachLimitAdmitsItsMaximumAndRefusesOneMore() {
        let longest = String(repeating: "k", count: Limits.maximumKeyBytes)
        #expect(KeyValueContract.violation(key: longest, size: 1, otherKeys: 0, otherBytes: 0) == nil)
        #expect(
            KeyValueContract.violation(key: longest + "k", size: 1, otherKeys: 0, otherBytes: 0)
                == .keyTooLong(key: longest + "k", bytes: Limits.maximumKeyBytes + 1))
        #expect(KeyValueContract.violation(key: "k", size: Limits.maximumValueBytes, otherKeys: 0, otherBytes: 0) == nil)
        #expect(
            KeyValueContract.violation(key: "k", size: Limits.maximumValueBytes + 1, otherKeys: 0, otherBytes: 0)
                == .valueTooLarge(key: "k", bytes: Limits.maximumValueBytes + 1))
        #expect(KeyValueContract.violation(key: "k", size: 1, otherKeys: Limits.maximumKeys - 1, otherBytes: 0) == nil)
        #expect(
            KeyValueContract.violation(key: "k", size: 1, otherKeys: Limits.maximumKeys, otherBytes: 0)
                == .tooManyKeys(key: "k", count: Limits.maximumKeys + 1))
        let room = Limits.maximumTotalBytes - 2
        #expect(KeyValueContract.violation(key: "k", size: 1, otherKeys: 1, otherBytes: room) == nil)
        let full = KeyValueContract.violation(key: "k", size: 2, otherKeys: 1, otherBytes: room)
        #expect(full == .storeFull(key: "k", bytes: Limits.maximumTotalBytes + 1))
        #expect(full?.description.contains("\(Limits.maximumTotalBytes)") == true)
    }

    /// Bytes and strings count their bytes; any other value its JSON, so a number cannot pass for free.
    @Test func valueSizeCountsBytesStringsAndTheJSONOfOthers() throws {
        #expect(try KeyValueContract.valueSize(["value": .bytes(Data(count: 300))]) == 300)
        #expect(try KeyValueContract.valueSize(["value": .string("é")]) == 2)
        let number = FieldValue.int64(12_345)
        #expect(try KeyValueContract.valueSize(["value": number]) == (try WireCoding.encode(number)).count)
        #expect(try KeyValueContract.valueSize(["a": .string("xy"), "b": .bytes(Data(count: 3))]) == 5)
    }
}
