import Foundation
import StratusKeyValue
import StratusTesting
import Testing

/// Every refused key-value write fails loudly (issue 22, #12): a key the server would refuse is refused
/// locally, a change the server refuses is reported by `synchronizeNow()` and reverted, and a removal
/// that came from the server stays removed in the file.
@Suite(.serialized) struct KeyValueRefusalTests {
    @Test func keysTheServerWouldRefuseAreRefusedLocally() async throws {
        try await KeyValueFixture.run { fixture in
            let store = try fixture.store(automatic: false, pushes: false)
            for key in ["", "tab\there", "new\nline", "escape\u{1B}"] {
                #expect(throws: KeyValueStoreError.self, "key \(key.debugDescription)") { try store.set("x", forKey: key) }
                #expect {
                    try store.set("x", forKey: key)
                } throws: { ($0 as? KeyValueStoreError)?.kind == .invalidKey }
            }
            #expect(store.dictionaryRepresentation.isEmpty && !store.hasPendingChanges)
            try store.set("fine", forKey: "caf\u{E9} \u{1F600}")
            #expect(try await store.synchronizeNow().uploadedKeys == ["caf\u{E9} \u{1F600}"])
        }
    }

    /// Two devices race for the 1,024th key: the loser's `synchronizeNow()` names the refused key and the reason.
    @Test func aChangeTheServerRefusesIsReportedAndReverted() async throws {
        try await KeyValueFixture.run { fixture in
            let phone = try fixture.store(automatic: false, pushes: false)
            for index in 0..<1_023 { try phone.set(Int64(index), forKey: "k\(index)") }
            try await phone.synchronizeNow()
            let laptop = try fixture.store(automatic: false, pushes: false)
            try await laptop.synchronizeNow()
            try phone.set("phone", forKey: "last-phone")
            try laptop.set("laptop", forKey: "last-laptop")  // fits locally: the laptop has not seen the phone's key
            #expect(try await phone.synchronizeNow().refusedKeys.isEmpty)
            let result = try await laptop.synchronizeNow()
            #expect(result.refusedKeys.keys.sorted() == ["last-laptop"])
            #expect(result.refusedKeys["last-laptop"]?.contains("1024") == true)
            #expect(laptop.object(forKey: "last-laptop") == nil, "the key has the server's value again (none)")
            #expect(laptop.string(forKey: "last-phone") == "phone")
            #expect(!laptop.hasPendingChanges)
        }
    }

    @Test func aRemovalFromTheServerStaysRemovedAfterReopening() async throws {
        try await KeyValueFixture.run { fixture in
            let phone = try fixture.store(automatic: false, pushes: false)
            var laptop: KeyValueStore? = try fixture.store(file: "laptop", automatic: false, pushes: false)
            try phone.set("soon gone", forKey: "draft")
            try await phone.synchronizeNow()
            try await laptop?.synchronizeNow()
            phone.removeObject(forKey: "draft")
            try await phone.synchronizeNow()
            try await laptop?.synchronizeNow()
            #expect(laptop?.object(forKey: "draft") == nil)
            laptop?.close()
            laptop = nil
            let reopened = try fixture.store(file: "laptop", automatic: false, pushes: false)
            #expect(reopened.object(forKey: "draft") == nil, "the removal was written to the file, not only to memory")
        }
    }
}
