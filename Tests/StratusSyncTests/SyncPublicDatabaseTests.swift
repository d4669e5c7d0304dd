import Foundation
import StratusClient
import StratusServer
import StratusSync
import StratusTesting
import StratusWire
import Testing

/// The public database: queries by modification time, Device and DeleteQueue records, retirement.
@Suite struct SyncPublicDatabaseTests {
    static let retirement: Duration = .seconds(3600)

    static func publicDevice(
        _ world: SyncWorld, _ name: String, policy: ConflictPolicy = .threeWayMerge, network: (any HTTPTransport)? = nil
    ) throws -> Device {
        try world.device(name, policy: policy, network: network) { configuration in
            configuration.databaseScope = .public
            configuration.deviceRetirement = retirement
        }
    }

    /// The records of a type in the public database, read straight from the server.
    static func serverRecords(_ device: Device, _ recordType: String) async throws -> [StratusClient.Record] {
        let database = device.sync.configuration.container.database(with: .public)
        let query = Query(recordType: recordType, filters: [.greaterThanOrEquals(.modifiedTimestamp, Date(timeIntervalSince1970: 0))])
        var found: [StratusClient.Record] = []
        for try await record in database.allRecords(matching: query) { found.append(record) }
        return found
    }

    /// The devices the DeleteQueue entries on the server are addressed to.
    static func queuedFor(_ device: Device) async throws -> [String] {
        try await serverRecords(device, "StratusDeleteQueue").compactMap { $0["dq_deviceID"] as String? }.sorted()
    }

    /// Three devices with clocks driven by hand: deletions reach every registered device through
    /// DeleteQueue entries (removed once applied); a silent device is retired, gets no more entries,
    /// and when it comes back does a full resync instead of replaying stale deletions.
    @Test func deletionsReachEveryDeviceAndASilentOneIsRetired() async throws {
        try await SyncWorld.run { world in
            let a = try Self.publicDevice(world, "a")
            let b = try Self.publicDevice(world, "b")
            let c = try Self.publicDevice(world, "c")
            for device in [a, b, c] { try await device.sync.sync() }  // registers each device

            let folder = make(Folder.self, ["name": "Shared"])
            let note = make(Note.self, ["title": "Agenda", "body": "items"])
            note["folder"] = folder
            let home = make(Tag.self, ["name": "home"])
            let stale = make(Tag.self, ["name": "stale"])
            a.store.insert(folder, note, home, stale)
            for entity in [note, home, stale] as [any SyncableEntity] { try await a.cloud(entity).save() }
            #expect(try await Self.serverRecords(a, "Note").first?.recordID.zoneID.zoneName == ZoneID.defaultZoneName)
            for device in [b, c] {
                let changes = try await device.sync.sync()
                #expect(changes.inserted.count == 4)
                #expect(device.store.find(Note.self, note.syncID)?.folder?.name == "Shared")
            }
            // Nothing new: the overlap window re-reads the same records, change tags keep them from coming again.
            #expect(try await b.sync.sync().isEmpty)

            // B deletes a tag: one DeleteQueue entry for each other device, removed once that device applied it.
            let homeOnB = try #require(b.store.find(Tag.self, home.syncID))
            try await b.cloud(homeOnB).delete()
            b.store.remove(homeOnB)
            #expect(try await Self.queuedFor(a) == ["device-a", "device-c"])
            let onA = try await a.sync.sync()
            #expect(onA.deleted.map(\.syncID) == [home.syncID])
            #expect(a.store.find(Tag.self, home.syncID) == nil)
            #expect(try await Self.queuedFor(a) == ["device-c"])
            #expect(try await a.sync.sync().isEmpty)  // applied once, never again

            // C goes silent; B deletes another tag, which queues an entry for C too.
            let staleOnB = try #require(b.store.find(Tag.self, stale.syncID))
            try await b.cloud(staleOnB).delete()
            b.store.remove(staleOnB)
            #expect(try await Self.queuedFor(a) == ["device-a", "device-c", "device-c"])

            // A and B keep checking in; past the retirement interval, C is retired: its Device record
            // and its entries go.
            for _ in 0..<2 {
                world.server.advanceClock(by: .seconds(2400))
                try await b.sync.sync()
                try await a.sync.sync()
            }
            #expect(a.store.find(Tag.self, stale.syncID) == nil)
            #expect(try await Self.queuedFor(a).isEmpty)
            let registered = try await Self.serverRecords(a, "StratusDevice").compactMap { $0["deviceID"] as String? }.sorted()
            #expect(registered == ["device-a", "device-b"])

            // While C is away: A deletes the note (no entry for C), and adds a tag.
            try await a.cloud(note).delete()
            a.store.remove(note)
            #expect(try await Self.queuedFor(a) == ["device-b"])
            let work = make(Tag.self, ["name": "work"])
            a.store.insert(work)
            try await a.cloud(work).save()

            // C comes back: a full resync finds both deletions and the new tag, with no queue to replay.
            let back = try await c.sync.sync()
            #expect(Set(back.deleted.map(\.syncID)) == Set([home.syncID, stale.syncID, note.syncID].compactMap { $0 }))
            #expect(back.inserted.map { $0.record.recordID.recordName } == [work.syncID])
            #expect(Set(c.store.all(Tag.self).compactMap(\.name)) == ["work"])
            #expect(c.store.all(Note.self).isEmpty)
            // C is registered again and gets entries from now on; a second sync is a plain delta.
            #expect(try await c.sync.sync().isEmpty)
            let workOnB = try #require(try await b.sync.sync().inserted.first?.entity as? Tag)
            #expect(workOnB.name == "work" && b.store.all(Note.self).isEmpty)
            try await b.cloud(workOnB).delete()
            b.store.remove(workOnB)
            #expect(try await Self.queuedFor(a) == ["device-a", "device-c"])
            for device in [a, c] {
                #expect(try await device.sync.sync().deleted.map(\.syncID) == [work.syncID])
                #expect(device.store.all(Tag.self).isEmpty)
            }
            #expect(try await Self.queuedFor(a).isEmpty)
            #expect(try await b.sync.sync().isEmpty)
            for device in [a, b, c] { #expect(await device.sync.status.isCaughtUp) }
        }
    }

    /// Deleting an owner deletes the weak entities it owns on every device, the deleting one included.
    @Test func aWeakCascadeReachesEveryDevice() async throws {
        try await SyncWorld.run { world in
            let a = try Self.publicDevice(world, "a")
            let b = try Self.publicDevice(world, "b")
            for device in [a, b] { try await device.sync.sync() }
            let folder = make(Folder.self, ["name": "Trip"])
            let pdf = make(Attachment.self, ["fileName": "tickets.pdf"])
            folder["attachments"] = [pdf] as [any SyncableEntity]
            a.store.insert(folder, pdf)
            try await a.cloud(folder).save()
            try await b.sync.sync()
            #expect(b.store.all(Attachment.self).map(\.fileName) == ["tickets.pdf"])

            try await a.cloud(folder).delete()
            a.store.remove(folder)
            let onB = try await b.sync.sync()
            #expect(Set(onB.deleted.map(\.syncID)) == Set([folder.syncID, pdf.syncID].compactMap { $0 }))
            #expect(b.store.all(Folder.self).isEmpty && b.store.all(Attachment.self).isEmpty)
            #expect(try await a.sync.sync().deleted.map(\.syncID) == [pdf.syncID])
            #expect(a.store.all(Attachment.self).isEmpty)
            #expect(try await Self.queuedFor(a).isEmpty)
        }
    }

    /// A withheld `finishSync` delivers the same public changes again, and the DeleteQueue entry stays until it is called.
    @Test func withheldFinishSyncKeepsTheQueueEntry() async throws {
        try await SyncWorld.run { world in
            let a = try Self.publicDevice(world, "a")
            let b = try Self.publicDevice(world, "b")
            for device in [a, b] { try await device.sync.sync() }
            let tag = make(Tag.self, ["name": "x"])
            a.store.insert(tag)
            try await a.cloud(tag).save()
            b.store.autoFinish = false
            #expect(try await b.sync.sync().inserted.count == 1)
            #expect(try await b.sync.sync().updated.count == 1)  // the store already holds the entity
            b.store.autoFinish = true
            #expect(try await b.sync.sync().updated.count == 1)
            #expect(try await b.sync.sync().isEmpty)

            try await a.cloud(tag).delete()
            a.store.remove(tag)
            b.store.autoFinish = false
            #expect(try await b.sync.sync().deleted.count == 1)
            #expect(try await Self.queuedFor(a) == ["device-b"])
            b.store.autoFinish = true
            #expect(try await b.sync.sync().deleted.count == 1)
            #expect(try await Self.queuedFor(a).isEmpty)
            #expect(try await b.sync.sync().isEmpty)
        }
    }

    /// Many deletions in one upload: one request deletes them, the device list is read once, and
    /// every other device still receives each deletion.
    @Test func manyDeletionsReadTheDeviceListOnce() async throws {
        try await SyncWorld.run { world in
            let counter = QueryCounter(recordType: "StratusDevice")
            let a = try Self.publicDevice(world, "a", network: counter)
            let b = try Self.publicDevice(world, "b")
            try await a.sync.sync()
            try await b.sync.sync()
            let tags = (0..<30).map { make(Tag.self, ["name": "tag \($0)"]) }
            for tag in tags { a.store.insert(tag) }
            try await a.sync.upload(tags.map { .save($0, keys: nil) })
            #expect(try await b.sync.sync().inserted.count == 30)

            let before = counter.queries
            try await a.sync.upload(tags.map { .delete($0) })
            #expect(counter.queries == before + 1)
            #expect(try await Self.queuedFor(a).count == 30)
            let onB = try await b.sync.sync()
            #expect(Set(onB.deleted.map(\.syncID)) == Set(tags.map(\.syncID)))
            #expect(b.store.all(Tag.self).isEmpty)
            #expect(try await Self.queuedFor(a).isEmpty)
            try await a.sync.close()
            try await b.sync.close()
        }
    }
}

/// The conflict policies on the public path: two devices edit one record offline and converge.
@Suite struct PublicConflictConvergenceTests {
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var policy: ConflictPolicy
        var title: String
        var body: String
        var tags: Set<String>
        var description: String { name }
    }

    static let cases = [
        Case(name: "server wins", policy: .serverWins, title: "A title", body: "base body", tags: ["base", "from A"]),
        Case(name: "client wins", policy: .clientWins, title: "B title", body: "B body", tags: ["base", "from B"]),
        Case(name: "latest change wins", policy: .latestChangeWins, title: "A title", body: "base body", tags: ["base", "from A"]),
        Case(name: "three-way merge", policy: .threeWayMerge, title: "A title", body: "B body", tags: ["base", "from A", "from B"]),
    ]

    @Test(arguments: cases) func offlineEditsConverge(_ expected: Case) async throws {
        try await SyncWorld.run { world in
            let scene = try await OfflineConflict.make(world, policy: expected.policy) { configuration in
                configuration.databaseScope = .public
            }
            try await scene.editBoth(world)
            try await scene.reconnect()
            scene.expectConverged(title: expected.title, body: expected.body, tags: expected.tags)
            #expect(!scene.b.store.conflicts.isEmpty)
        }
    }
}

/// Fetching by modification time never loses a change to equal timestamps or late commits.
@Suite struct PublicQueryWindowTests {
    /// Two writes in the same millisecond, and a write stamped before the last one seen (committed
    /// late), all reach the other device, each once.
    @Test func equalTimestampsAndLateCommitsAreNotLost() async throws {
        let clock = ManualClock(start: 1_760_000_000_000)
        try await SyncWorld.run(configure: { configuration in
            configuration.now = clock.reader
        }) { world in
            let a = try SyncPublicDatabaseTests.publicDevice(world, "a")
            let b = try SyncPublicDatabaseTests.publicDevice(world, "b")
            for device in [a, b] { try await device.sync.sync() }
            let first = make(Tag.self, ["name": "first"])
            a.store.insert(first)
            try await a.cloud(first).save()
            #expect(try await b.sync.sync().inserted.count == 1)

            // Same millisecond as the last record B saw.
            let twin = make(Tag.self, ["name": "twin"])
            a.store.insert(twin)
            try await a.cloud(twin).save()
            // Stamped 10 ms earlier: a write that committed after B's last fetch.
            clock.set(1_760_000_000_000 - 10)
            let late = make(Tag.self, ["name": "late"])
            a.store.insert(late)
            try await a.cloud(late).save()
            clock.set(1_760_000_000_000)

            let changes = try await b.sync.sync()
            #expect(Set(changes.inserted.compactMap { ($0.entity as? Tag)?.name }) == ["twin", "late"])
            #expect(changes.updated.isEmpty)
            #expect(try await b.sync.sync().isEmpty)
            #expect(Set(b.store.all(Tag.self).compactMap(\.name)) == ["first", "twin", "late"])
        }
    }

    /// Without the overlap window the late write would be missed: the window is what catches it.
    @Test func withoutOverlapALateCommitIsMissed() async throws {
        let clock = ManualClock(start: 1_760_000_000_000)
        try await SyncWorld.run(configure: { configuration in
            configuration.now = clock.reader
        }) { world in
            let a = try SyncPublicDatabaseTests.publicDevice(world, "a")
            let b = try world.device("b") { configuration in
                configuration.databaseScope = .public
                configuration.publicQueryOverlap = .zero
            }
            for device in [a, b] { try await device.sync.sync() }
            let first = make(Tag.self, ["name": "first"])
            a.store.insert(first)
            try await a.cloud(first).save()
            #expect(try await b.sync.sync().inserted.count == 1)
            clock.set(1_760_000_000_000 - 10)
            let late = make(Tag.self, ["name": "late"])
            a.store.insert(late)
            try await a.cloud(late).save()
            #expect(try await b.sync.sync().isEmpty)
        }
    }
}

/// Two signed-in users share the public database: records are creator-writable.
@Suite struct PublicDatabaseUsersTests {
    static func userDevice(_ world: SyncWorld, _ name: String, _ user: TestCloudKitServer.SignedInUser) throws -> Device {
        try world.device(name) { configuration in
            configuration.databaseScope = .public
            configuration.container = Container(
                identifier: TestCloudKitServer.container, environment: .development, serverURL: world.server.http.url(""),
                authentication: .apiToken(user.apiToken, webAuthToken: user.webAuthToken), transport: SyncWorld.sharedTransport)
        }
    }

    /// Each user changes only their own records; deletions still reach the other user's device, and
    /// a DeleteQueue entry the device may not remove is remembered as applied, never delivered twice.
    @Test func creatorsWriteEveryoneReadsAndDeletionsArrive() async throws {
        try await SyncWorld.run(configure: { configuration in
            configuration.authentication.requiresAuthentication = true
        }) { world in
            let a = try Self.userDevice(world, "a", try await world.server.signedInUser("ada@example.com"))
            let b = try Self.userDevice(world, "b", try await world.server.signedInUser("bob@example.com"))
            for device in [a, b] { try await device.sync.sync() }

            let mine = make(Tag.self, ["name": "ada's"])
            a.store.insert(mine)
            try await a.cloud(mine).save()
            try await b.sync.sync()
            let onB = try #require(b.store.find(Tag.self, mine.syncID))
            #expect(onB.name == "ada's")

            // Bob may not change Ada's record: the save is refused by name.
            onB["name"] = "bob's now"
            let refused = await #expect(throws: SyncError.self) { try await b.cloud(onB).save() }
            #expect(refused?.code == .rejected)

            let theirs = make(Tag.self, ["name": "bob's"])
            b.store.insert(theirs)
            try await b.cloud(theirs).save()
            #expect(try await a.sync.sync().inserted.map { $0.record.recordID.recordName } == [theirs.syncID])

            // Ada deletes her tag: Bob's device applies it once, though it cannot remove Ada's entry.
            try await a.cloud(mine).delete()
            a.store.remove(mine)
            #expect(try await b.sync.sync().deleted.map(\.syncID) == [mine.syncID])
            #expect(b.store.find(Tag.self, mine.syncID) == nil)
            #expect(try await b.sync.sync().isEmpty)
            #expect(try await SyncPublicDatabaseTests.queuedFor(a) == ["device-b"])  // Ada's record; Bob may not delete it
        }
    }
}
