import Foundation
import StratusClient
import StratusKeyValue
import StratusTesting
import StratusWire
import Testing

/// `KeyValueStore`: local limits, values, and two devices syncing through a real server.
@Suite struct KeyValueStoreTests {
    /// A store that never talks to a server.
    private func localStore() throws -> KeyValueStore {
        var configuration = KeyValueStore.Configuration()
        configuration.syncsAutomatically = false
        configuration.observesPushes = false
        let container = Container(
            identifier: "iCloud.com.example.Tests", environment: .development, serverURL: URL(fileURLWithPath: "/"),
            authentication: .none)
        return try KeyValueStore(container: container, databaseURL: nil, configuration: configuration)
    }

    /// A string whose encoded value (`{"s":"…"}`) is exactly `size` bytes.
    private func value(ofEncodedSize size: Int) -> KeyValueStore.Value { .string(String(repeating: "a", count: size - 8)) }

    @Test func typedValuesRoundTrip() throws {
        let store = try localStore()
        try store.set("dark", forKey: "theme")
        try store.set(Int64(42), forKey: "count")
        try store.set(2.5, forKey: "ratio")
        try store.set(true, forKey: "flag")
        try store.set(Data([1, 2, 3]), forKey: "blob")
        try store.set(["a", 1, false] as [KeyValueStore.Value], forKey: "list")
        try store.set(["size": 14, "nested": ["x": "y"]] as [String: KeyValueStore.Value], forKey: "prefs")
        #expect(store.string(forKey: "theme") == "dark")
        #expect(store.int64(forKey: "count") == 42)
        #expect(store.double(forKey: "ratio") == 2.5)
        #expect(store.bool(forKey: "flag") == true)
        #expect(store.data(forKey: "blob") == Data([1, 2, 3]))
        #expect(store.array(forKey: "list") == ["a", 1, false])
        #expect(store.dictionary(forKey: "prefs")?["nested"] == ["x": "y"])
        #expect(store.string(forKey: "count") == nil)
        store.removeObject(forKey: "theme")
        #expect(store.object(forKey: "theme") == nil)
        #expect(store.dictionaryRepresentation.count == 6)
        #expect(store.hasPendingChanges)
    }

    @Test func keyLimitExactlyAndOnePast() throws {
        let store = try localStore()
        try store.set("v", forKey: String(repeating: "k", count: 64))
        let error = try #require(throws: KeyValueStoreError.self) { try store.set("v", forKey: String(repeating: "k", count: 65)) }
        #expect(error.kind == .keyTooLong)
        #expect(store.dictionaryRepresentation.count == 1)
    }

    @Test func valueLimitExactlyAndOnePast() throws {
        let store = try localStore()
        try store.set(value(ofEncodedSize: KeyValueStore.Limits.maximumValueBytes), forKey: "big")
        let error = try #require(throws: KeyValueStoreError.self) {
            try store.set(value(ofEncodedSize: KeyValueStore.Limits.maximumValueBytes + 1), forKey: "bigger")
        }
        #expect(error.kind == .valueTooLarge)
        #expect(store.object(forKey: "bigger") == nil)
    }

    @Test func keyCountLimitExactlyAndOnePast() throws {
        let store = try localStore()
        for index in 0..<KeyValueStore.Limits.maximumKeys { try store.set(Int64(index), forKey: "key\(index)") }
        let error = try #require(throws: KeyValueStoreError.self) { try store.set(1, forKey: "one-more") }
        #expect(error.kind == .tooManyKeys)
        try store.set(7, forKey: "key0")  // replacing is not adding
        store.removeObject(forKey: "key1")
        try store.set(1, forKey: "one-more")
    }

    @Test func totalLimitExactlyAndOnePast() throws {
        let store = try localStore()
        let size = KeyValueStore.Limits.maximumTotalBytes / 4 - 2
        for index in 0..<4 { try store.set(value(ofEncodedSize: size), forKey: "k\(index)") }
        let error = try #require(throws: KeyValueStoreError.self) { try store.set("", forKey: "k4") }
        #expect(error.kind == .storeFull)
        #expect(throws: KeyValueStoreError.self) { try store.set(value(ofEncodedSize: size + 1), forKey: "k3") }
        try store.set(value(ofEncodedSize: size), forKey: "k3")
    }

    @Test func twoDevicesSeeEachOthersChanges() async throws {
        try await KeyValueFixture.run { fixture in
            // Pushes make it prompt; polling every 2 s covers a push sent before a courier token was registered.
            let phone = try fixture.store(poll: true)
            let laptop = try fixture.store(poll: true)
            try await phone.synchronizeNow()
            try await laptop.synchronizeNow()
            let laptopLog = ChangeLog(laptop)
            let phoneLog = ChangeLog(phone)

            try phone.set("dark", forKey: "theme")
            try phone.set(Int64(14), forKey: "fontSize")
            let change = try await laptopLog.wait { $0.changedKeys.contains("fontSize") }
            #expect(change.reason == .serverChange)
            #expect(laptop.string(forKey: "theme") == "dark")
            #expect(laptop.int64(forKey: "fontSize") == 14)
            #expect(laptopLog.all.allSatisfy { $0.reason == .serverChange })

            laptop.removeObject(forKey: "theme")
            let removal = try await phoneLog.wait { $0.changedKeys.contains("theme") }
            #expect(removal.reason == .serverChange)
            #expect(removal.changedKeys == ["theme"])
            #expect(phone.string(forKey: "theme") == nil)
            // A device's own changes are not announced back to it.
            #expect(!phoneLog.all.contains { $0.changedKeys.contains("fontSize") })

            // A new device announces what it finds as the initial sync.
            let tablet = try fixture.store(automatic: false, pushes: false)
            let tabletLog = ChangeLog(tablet)
            try await tablet.synchronizeNow()
            let initial = try await tabletLog.wait { _ in true }
            #expect(initial.reason == .initialSync)
            #expect(initial.changedKeys == ["fontSize"])
            phone.close()
            laptop.close()
        }
    }

    @Test func offlineWritesPersistAndSyncAfterReconnect() async throws {
        try await KeyValueFixture.run { fixture in
            let network = SwitchableTransport()
            network.isOffline = true
            var phone: KeyValueStore? = try fixture.store(file: "phone", transport: network, pushes: false)
            try phone?.set("offline", forKey: "note")
            await #expect(throws: StratusError.self) { try await phone?.synchronizeNow() }
            #expect(phone?.hasPendingChanges == true)
            phone?.close()
            phone = nil

            // Reopened, still offline: the value and the pending upload survived.
            let reopened = try fixture.store(file: "phone", transport: network, automatic: false, pushes: false)
            #expect(reopened.string(forKey: "note") == "offline")
            #expect(reopened.hasPendingChanges)

            network.isOffline = false
            try await reopened.synchronizeNow()
            #expect(!reopened.hasPendingChanges)
            let laptop = try fixture.store(automatic: false, pushes: false)
            try await laptop.synchronizeNow()
            #expect(laptop.string(forKey: "note") == "offline")
        }
    }

    @Test func conflictsResolveByTheServersCommitOrder() async throws {
        try await KeyValueFixture.run { fixture in
            let phone = try fixture.store(automatic: false, pushes: false)
            let laptop = try fixture.store(automatic: false, pushes: false)
            let phoneLog = ChangeLog(phone)
            try phone.set("red", forKey: "color")
            try laptop.set("blue", forKey: "color")
            try await phone.synchronizeNow()
            try await laptop.synchronizeNow()  // committed last: wins
            try await phone.synchronizeNow()
            #expect(phone.string(forKey: "color") == "blue")
            #expect(laptop.string(forKey: "color") == "blue")
            let change = try await phoneLog.wait { $0.changedKeys == ["color"] }
            #expect(change.reason == .serverChange)
        }
    }

    @Test func serverQuotaViolationRevertsAndIsAnnounced() async throws {
        try await KeyValueFixture.run { fixture in
            let phone = try fixture.store(automatic: false, pushes: false)
            let size = 250_000
            for index in 0..<4 { try phone.set(value(ofEncodedSize: size), forKey: "a\(index)") }
            try await phone.synchronizeNow()
            // The laptop has not synced yet: locally it fits, on the server the total would pass 1 MB.
            let laptop = try fixture.store(automatic: false, pushes: false)
            let laptopLog = ChangeLog(laptop)
            try laptop.set(value(ofEncodedSize: size), forKey: "b0")
            try await laptop.synchronizeNow()
            let violation = try await laptopLog.wait { $0.reason == .quotaViolation }
            #expect(violation.changedKeys == ["b0"])
            #expect(laptop.object(forKey: "b0") == nil)
            #expect(!laptop.hasPendingChanges)
            let initial = try await laptopLog.wait { $0.reason == .initialSync }
            #expect(initial.changedKeys == ["a0", "a1", "a2", "a3"])
        }
    }

    @Test func anotherAccountOnTheSameFileClearsAndAnnouncesAccountChange() async throws {
        try await KeyValueFixture.run { fixture in
            var ada: KeyValueStore? = try fixture.store(file: "shared", automatic: false, pushes: false)
            try ada?.set("ada's", forKey: "owner")
            try await ada?.synchronizeNow()
            ada?.close()
            ada = nil

            let grace = try await fixture.server.signedInUser("grace@example.com")
            let graceStore = try fixture.store(file: "shared", automatic: false, pushes: false, as: grace)
            #expect(graceStore.string(forKey: "owner") == "ada's")  // until the first sync sees the new account
            let log = ChangeLog(graceStore)
            try graceStore.set("grace's", forKey: "draft")
            try await graceStore.synchronizeNow()
            let change = try await log.wait { $0.reason == .accountChange }
            #expect(change.changedKeys == ["draft", "owner"])
            #expect(graceStore.dictionaryRepresentation.isEmpty)
            #expect(!graceStore.hasPendingChanges)

            // Ada's values stayed in Ada's account.
            let adaAgain = try fixture.store(automatic: false, pushes: false)
            try await adaAgain.synchronizeNow()
            #expect(adaAgain.string(forKey: "owner") == "ada's")
            #expect(adaAgain.object(forKey: "draft") == nil)
        }
    }

    @Test func notificationCenterCarriesReasonAndKeys() async throws {
        try await KeyValueFixture.run { fixture in
            let phone = try fixture.store(automatic: false, pushes: false)
            try phone.set(1, forKey: "x")
            try await phone.synchronizeNow()
            let laptop = try fixture.store(automatic: false, pushes: false)
            let received = NotificationLog()
            let observer = NotificationCenter.default.addObserver(
                forName: KeyValueStore.didChangeExternallyNotification, object: laptop, queue: nil
            ) { notification in
                received.add(
                    reason: notification.userInfo?[KeyValueStore.changeReasonKey] as? Int,
                    keys: notification.userInfo?[KeyValueStore.changedKeysKey] as? [String])
            }
            defer { NotificationCenter.default.removeObserver(observer) }
            try await laptop.synchronizeNow()
            #expect(received.entries.first?.reason == KeyValueStore.ChangeReason.initialSync.rawValue)
            #expect(received.entries.first?.keys == ["x"])
        }
    }
}

/// Notification center entries, collected thread-safely.
final class NotificationLog: @unchecked Sendable {
    // Safety: `lock` guards `stored`.
    private let lock = NSLock()
    private var stored: [(reason: Int?, keys: [String]?)] = []

    func add(reason: Int?, keys: [String]?) {
        lock.lock()
        defer { lock.unlock() }
        stored.append((reason, keys))
    }

    var entries: [(reason: Int?, keys: [String]?)] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
