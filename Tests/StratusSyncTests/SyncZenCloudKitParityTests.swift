import Foundation
import StratusClient
import StratusSync
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// ZenCloudKit's API where Stratus keeps it (issue 21, section 3), each point on real devices.
@Suite struct SyncZenCloudKitParityTests {
    /// `ignoreKeys` lists sync IDs of objects sync leaves alone: a full sync does not upload them, a
    /// fetch neither updates nor replaces them, and `cloud.save()` of one is refused by name.
    @Test func ignoreKeysListsObjectsSyncLeavesAlone() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let b = try world.device("b") { $0.ignoreKeys = ["shared-tag"] }
            let local = make(Tag.self, ["name": "mine", "syncID": "shared-tag"])
            let other = make(Tag.self, ["name": "other"])
            b.store.insert(local, other)
            try await b.sync.syncEntities()
            #expect(other.syncID != nil, "the other tag went up")
            let error = await #expect(throws: SyncError.self) { try await b.cloud(local).save() }
            #expect(error?.code == .ignoredEntity)

            let remote = make(Tag.self, ["name": "from a", "syncID": "shared-tag"])
            a.store.insert(remote)
            try await a.cloud(remote).save()
            try await b.sync.sync()
            #expect(local.name == "mine", "a fetch does not touch an ignored object")
            #expect(b.store.all(Tag.self).count == 2, "nor makes another object for its record")
        }
    }

    /// Field exclusion has a name of its own, `excludedKeys`: the field never leaves the device.
    @Test func excludedKeysKeepAFieldOnTheDevice() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a") { $0.excludedKeys = ["body"] }
            let b = try world.device("b")
            let note = make(Note.self, ["title": "Plan", "body": "private draft"])
            a.store.insert(note)
            let saved = try #require(try await a.cloud(note).save())
            #expect(saved["text"] as FieldValue? == nil)
            try await b.sync.sync()
            let copy = try #require(b.store.find(Note.self, note.syncID))
            #expect(copy.title == "Plan" && copy.body == nil)
        }
    }

    /// A non-forced full sync also uploads objects whose change date is later than the last
    /// successful sync (edits saved without `cloud.save()`); one changed with an older date waits
    /// for a forced sync, which checks everything.
    @Test func fullSyncUploadsWhatChangedAfterTheLastSyncByItsChangeDate() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let b = try world.device("b")
            let dated = make(Tag.self, ["name": "dated"])
            let undated = make(Tag.self, ["name": "undated"])
            a.store.insert(dated, undated)
            try await a.sync.syncEntities()
            try await b.sync.sync()
            #expect(b.store.all(Tag.self).compactMap(\.name).sorted() == ["dated", "undated"])

            world.server.advanceClock(by: .seconds(5))
            dated["name"] = "dated, edited"
            dated["modified"] = world.clock()
            undated["name"] = "undated, edited"  // the app forgot the change date
            try await a.sync.syncEntities(forced: false)
            try await b.sync.sync()
            #expect(b.store.all(Tag.self).compactMap(\.name).sorted() == ["dated, edited", "undated"])

            try await a.sync.syncEntities(forced: true)
            try await b.sync.sync()
            #expect(b.store.all(Tag.self).compactMap(\.name).sorted() == ["dated, edited", "undated, edited"])
        }
    }

    /// An APNs payload (`userInfo`) and a courier notification both make the controller fetch the
    /// delta and deliver it; a push about something else, or not CloudKit's, fetches nothing, and a
    /// CloudKit payload that does not decode is an error naming it.
    @Test func handleNotificationFetchesTheDeltaForAPNsAndCourierPushes() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let b = try world.device("b")
            let first = make(Tag.self, ["name": "first"])
            a.store.insert(first)
            try await a.cloud(first).save()

            let elsewhere = Self.payload(zone: "OtherZone", subscription: "other")
            #expect(try await b.sync.handleNotification(userInfo: elsewhere).value.isEmpty)
            #expect(try await b.sync.handleNotification(userInfo: ["aps": ["alert": "hello"]]).value.isEmpty)
            #expect(b.store.all(Tag.self).isEmpty)

            let apns = Self.payload(zone: b.sync.zoneID.zoneName, subscription: b.sync.pushSubscriptionID)
            let delivered = try await b.sync.handleNotification(userInfo: apns).value
            #expect(delivered.inserted.map { $0.record.recordID.recordName } == [first.syncID])

            let second = make(Tag.self, ["name": "second"])
            a.store.insert(second)
            try await a.cloud(second).save()
            let data = try JSONSerialization.data(withJSONObject: Self.payload(zone: b.sync.zoneID.zoneName, subscription: nil))
            let courier = CloudNotification(payload: try WireCoding.decode(CourierNotification.self, from: data))
            let fetched = try await b.sync.handleNotification(courier)
            #expect(fetched.inserted.map { $0.record.recordID.recordName } == [second.syncID])

            let broken = await #expect(throws: SyncError.self) { try await b.sync.handleNotification(userInfo: ["ck": "nonsense"]).value }
            #expect(broken?.code == .invalidNotification)
        }
    }

    /// An APNs remote notification's `userInfo` as CloudKit sends it for a zone subscription.
    static func payload(zone: String, subscription: String?) -> [AnyHashable: Any] {
        var fetch: [String: Any] = ["zid": zone, "dbs": 0]
        if let subscription { fetch["sid"] = subscription }
        return ["aps": ["content-available": 1], "ck": ["ce": 2, "cid": TestCloudKitServer.container, "nid": UUID().uuidString, "fet": fetch]]
    }

    /// Debug logging is on by default and prints through the default handler, to standard error,
    /// with nothing bootstrapped (a child process, so the output is the real stream).
    @Test func debugLoggingIsOnByDefaultAndPrintsToStandardError() async throws {
        let result = try await #require(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let directory = try TemporaryDirectory()
            let container = Container(
                identifier: TestCloudKitServer.container, environment: .development, serverURL: directory.url, authentication: .none)
            let configuration = SyncConfiguration(
                container: container, entityTypes: [Tag.self], syncIdKey: "syncID", changeDateKey: "modified", deviceID: "d",
                bookkeepingPath: directory.path("d.sqlite"))
            #expect(configuration.debugLogging)
            let controller = try SyncController(configuration: configuration, delegate: MemoryStore())
            await controller.pause()
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("sync paused"))
    }

    /// `saveKeysAndWait` saves only the named properties, blocking its (non-async) caller.
    @Test func saveKeysAndWaitSavesOnlyTheNamedKeys() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let b = try world.device("b")
            let note = make(Note.self, ["title": "Plan", "body": "Q3"])
            a.store.insert(note)
            try await a.cloud(note).save()
            note["title"] = "Plan B"
            note["body"] = "Q4"
            let proxy = a.cloud(note)
            let saved = try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(with: Result { try proxy.saveKeysAndWait(["title"]) })
                }
            }
            #expect(saved?["title"] as FieldValue? == .string("Plan B"))
            try await b.sync.sync()
            let copy = try #require(b.store.find(Note.self, note.syncID))
            #expect(copy.title == "Plan B" && copy.body == "Q3")
        }
    }

    /// `Tag.syncEntities(forced:)` is a full sync of that type only, through the current controller.
    @Test func perTypeSyncEntitiesUploadsThatTypeOnly() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let b = try world.device("b")
            a.store.insert(make(Tag.self, ["name": "tag"]), make(Note.self, ["title": "note"]))
            try await a.sync.withCurrent { _ = try await Tag.syncEntities(forced: false) }
            try await b.sync.sync()
            #expect(b.store.all(Tag.self).map(\.name) == ["tag"])
            #expect(b.store.all(Note.self).isEmpty)
        }
    }

    /// `predicateForId` finds an entity by its sync ID.
    @Test func predicateForIdFindsAnEntityBySyncID() {
        let tags = [make(Tag.self, ["syncID": "t1", "name": "one"]), make(Tag.self, ["syncID": "t2", "name": "two"])]
        #expect(tags.first(where: Tag.predicateForId("t2"))?.name == "two")
        #expect(tags.first(where: Tag.predicateForId("t3")) == nil)
    }

    /// Declarations written the seed's way (`static let changeDateKey: String = …`, and the other
    /// requirements with the seed's types) are the ones the controller reads, not the protocol's defaults.
    @Test func seedStyleDeclarationsAreTheOnesTheControllerReads() async throws {
        try await Self.expectOwnKeysAreUsed(Memo.self)
    }

    /// Keys declared `String?`, as the global ones are, are read too: not a second property Swift
    /// lets the protocol's default hide.
    @Test func keysDeclaredOptionalAreReadToo() async throws {
        try await Self.expectOwnKeysAreUsed(OptionalKeysMemo.self)
        #expect(OptionalKeysMemo.resolvedSyncIdKey == "memoID")
    }

    /// `Entity` (keys `memoID`, `edited` of its own) syncs with those keys, never the global ones.
    static func expectOwnKeysAreUsed<Entity: MemoryEntity>(_ type: Entity.Type) async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a") { $0.entityTypes.append(Entity.self) }
            let b = try world.device("b") { $0.entityTypes.append(Entity.self) }
            let memo = make(Entity.self, ["text": "hello"])
            a.store.insert(memo)
            let saved = try #require(try await a.cloud(memo).save())
            #expect(memo.value(forKey: "memoID") as? String == saved.recordID.recordName)
            #expect(memo.value(forKey: "edited") is Date)
            #expect(memo.value(forKey: "syncID") == nil && memo.value(forKey: "modified") == nil, "the global keys are not used")
            #expect(saved.recordType == "Memo" && saved["body"] as FieldValue? == .string("hello"))
            try await b.sync.sync()
            #expect(b.store.all(Entity.self).map { $0.value(forKey: "memoID") as? String } == [saved.recordID.recordName])
        }
    }

    /// A deletion reaches the other device's delegate with its entity type.
    @Test func deletionsReachTheDelegateWithTheirEntityType() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let b = try world.device("b")
            let note = make(Note.self, ["title": "gone soon"])
            a.store.insert(note)
            try await a.cloud(note).save()
            try await b.sync.sync()
            try await a.cloud(note).delete()
            let changes = try await b.sync.sync()
            let deletion = try #require(changes.deleted.first)
            #expect(deletion.entityType.map(ObjectIdentifier.init) == ObjectIdentifier(Note.self) && deletion.syncID == note.syncID)
        }
    }
}

/// An entity declared as the ZenCloudKit seed declared its entities: every requirement a `static let`
/// with the seed's type, keys of its own instead of the controller's.
final class Memo: MemoryEntity {
    let storage = Mutex<[String: StoredValue]>([:])
    static let recordType: String = "Memo"
    static let mapping: [String: String] = ["text": "body"]
    static let syncIdKey: String = "memoID"
    static let changeDateKey: String = "edited"
    static let references: [String: String] = [:]
    static let referenceLists: [ReferenceList] = []
    static let isWeak: Bool = false
}

/// ``Memo`` with its keys declared `String?`, the type of the configuration's global keys.
final class OptionalKeysMemo: MemoryEntity {
    let storage = Mutex<[String: StoredValue]>([:])
    static let recordType = "Memo"
    static let mapping = ["text": "body"]
    static let syncIdKey: String? = "memoID"
    static let changeDateKey: String? = "edited"
}
