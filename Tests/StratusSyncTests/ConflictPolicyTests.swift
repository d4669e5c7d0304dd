import Foundation
import StratusClient
import StratusSync
import StratusTesting
import StratusWire
import Testing

/// Two devices share a note, both edit it offline, A reconnects first, then B; both converge.
struct OfflineConflict {
    let a: Device
    let b: Device
    let noteA: Note
    let noteB: Note

    /// Sets up the shared note (title, body and one tag) on both devices, then takes both offline;
    /// `configure` adjusts both devices' setup (the public database, for one).
    static func make(
        _ world: SyncWorld, policy: ConflictPolicy, configure: (inout SyncConfiguration) -> Void = { _ in }
    ) async throws -> OfflineConflict {
        let a = try world.device("a", policy: policy, configure: configure)
        let b = try world.device("b", policy: policy, configure: configure)
        let tag = StratusSyncTests.make(Tag.self, ["name": "base"])
        let note = StratusSyncTests.make(Note.self, ["title": "Base", "body": "base body"])
        note["tags"] = [tag] as [any SyncableEntity]
        a.store.insert(tag, note)
        try await a.cloud(note).save()
        try await b.sync.sync()
        let noteB = try #require(b.store.find(Note.self, note.syncID))
        a.transport.isOffline = true
        b.transport.isOffline = true
        return OfflineConflict(a: a, b: b, noteA: note, noteB: noteB)
    }

    /// A edits the title and adds a tag; B (later) edits title and body and adds another tag.
    func editBoth(_ world: SyncWorld) async throws {
        noteA["title"] = "A title"
        let tagA = StratusSyncTests.make(Tag.self, ["name": "from A"])
        a.store.insert(tagA)
        noteA["tags"] = noteA.tags + [tagA] as [any SyncableEntity]
        #expect(try await a.cloud(noteA).save() == nil)
        world.server.advanceClock(by: .seconds(5))
        noteB["title"] = "B title"
        noteB["body"] = "B body"
        let tagB = StratusSyncTests.make(Tag.self, ["name": "from B"])
        b.store.insert(tagB)
        noteB["tags"] = noteB.tags + [tagB] as [any SyncableEntity]
        #expect(try await b.cloud(noteB).save() == nil)
    }

    /// A reconnects and syncs, then B, then A again.
    func reconnect() async throws {
        a.transport.isOffline = false
        try await a.sync.sync()
        b.transport.isOffline = false
        try await b.sync.sync()
        try await a.sync.sync()
    }

    /// Both devices hold the same values.
    func expectConverged(title: String, body: String, tags: Set<String>) {
        for note in [noteA, noteB] {
            #expect(note.title == title)
            #expect(note.body == body)
            #expect(Set(note.tags.compactMap(\.name)) == tags)
        }
    }
}

@Suite struct ServerWinsTests {
    @Test func serverVersionStandsAndTheLossIsReported() async throws {
        try await SyncWorld.run { world in
            let scene = try await OfflineConflict.make(world, policy: .serverWins)
            try await scene.editBoth(world)
            try await scene.reconnect()
            scene.expectConverged(title: "A title", body: "base body", tags: ["base", "from A"])
            let conflict = try #require(scene.b.store.conflicts.first)
            #expect(conflict.discardedLocal["title"] == FieldValue.string("B title"))
            #expect(conflict.discardedLocal["text"] == FieldValue.string("B body"))
        }
    }
}

@Suite struct ClientWinsTests {
    @Test func lastUploaderReplacesTheServerVersion() async throws {
        try await SyncWorld.run { world in
            let scene = try await OfflineConflict.make(world, policy: .clientWins)
            try await scene.editBoth(world)
            try await scene.reconnect()
            scene.expectConverged(title: "B title", body: "B body", tags: ["base", "from B"])
            #expect(scene.b.store.conflicts.first?.discardedServer["title"] == FieldValue.string("A title"))
        }
    }
}

@Suite struct LatestChangeWinsTests {
    /// B's edit was made before A's reached the server: A's stands.
    @Test func olderOfflineEditLoses() async throws {
        try await SyncWorld.run { world in
            let scene = try await OfflineConflict.make(world, policy: .latestChangeWins)
            scene.noteB["title"] = "B early"
            #expect(try await scene.b.cloud(scene.noteB).save() == nil)
            world.server.advanceClock(by: .seconds(5))
            scene.a.transport.isOffline = false
            scene.noteA["title"] = "A later"
            try await scene.a.cloud(scene.noteA).save()
            scene.b.transport.isOffline = false
            try await scene.b.sync.sync()
            try await scene.a.sync.sync()
            #expect(scene.noteA.title == "A later" && scene.noteB.title == "A later")
        }
    }

    /// B edited after A's change reached the server (by the server's clock): B's wins.
    @Test func newerOfflineEditWins() async throws {
        try await SyncWorld.run { world in
            let scene = try await OfflineConflict.make(world, policy: .latestChangeWins)
            try await scene.editBoth(world)
            try await scene.reconnect()
            // A uploaded after B's edit, so A's server stamp is later than B's edit: A wins.
            scene.expectConverged(title: "A title", body: "base body", tags: ["base", "from A"])

            scene.a.transport.isOffline = false
            scene.noteA["title"] = "A again"
            try await scene.a.cloud(scene.noteA).save()
            world.server.advanceClock(by: .seconds(5))
            scene.b.transport.isOffline = true
            scene.noteB["title"] = "B newest"
            #expect(try await scene.b.cloud(scene.noteB).save() == nil)
            scene.b.transport.isOffline = false
            try await scene.b.sync.sync()
            try await scene.a.sync.sync()
            #expect(scene.noteA.title == "B newest" && scene.noteB.title == "B newest")
        }
    }
}

@Suite struct ThreeWayMergeTests {
    /// Fields changed on one side keep that change; both-changed lists merge; both-changed scalars take the later change.
    @Test func fieldLevelMergeKeepsBothSidesWork() async throws {
        try await SyncWorld.run { world in
            let scene = try await OfflineConflict.make(world, policy: .threeWayMerge)
            try await scene.editBoth(world)
            try await scene.reconnect()
            // Title: A's upload is later than B's offline edit on the server's timeline.
            scene.expectConverged(title: "A title", body: "B body", tags: ["base", "from A", "from B"])
            let conflict = try #require(scene.b.store.conflicts.first)
            #expect(conflict.discardedLocal["title"] == FieldValue.string("B title"))
            #expect(conflict.discardedLocal["text"] == nil)
        }
    }
}

@Suite struct CustomPolicyTests {
    @Test func closureDecides() async throws {
        try await SyncWorld.run { world in
            let policy = ConflictPolicy.custom { versions in
                var fields = versions.server
                if case .string(let local)? = versions.local["title"], case .string(let server)? = versions.server["title"] {
                    fields["title"] = .string("\(server) + \(local)")
                }
                return fields
            }
            let scene = try await OfflineConflict.make(world, policy: policy)
            try await scene.editBoth(world)
            try await scene.reconnect()
            scene.expectConverged(title: "A title + B title", body: "base body", tags: ["base", "from A"])
            #expect(scene.b.store.conflicts.first?.versions.base?["title"] == FieldValue.string("Base"))
        }
    }
}

@Suite struct ThreeDeviceMergeTests {
    /// Three devices edit different fields of one note offline; after they reconnect one by one and
    /// sync again, all three hold every edit.
    @Test func threeOfflineEditorsConverge() async throws {
        try await SyncWorld.run { world in
            let devices = try ["a", "b", "c"].map { try world.device($0) }
            let note = make(Note.self, ["title": "Base", "body": "base body", "rank": 1])
            devices[0].store.insert(note)
            try await devices[0].cloud(note).save()
            for device in devices.dropFirst() { try await device.sync.sync() }
            let copies = try devices.map { try #require($0.store.find(Note.self, note.syncID)) }
            for device in devices { device.transport.isOffline = true }

            copies[0]["title"] = "title from a"
            copies[1]["body"] = "body from b"
            copies[2]["rank"] = 3
            for (device, copy) in zip(devices, copies) {
                #expect(try await device.cloud(copy).save() == nil)
                world.server.advanceClock(by: .seconds(1))
            }
            for device in devices {
                device.transport.isOffline = false
                try await device.sync.sync()
            }
            for device in devices { try await device.sync.sync() }
            for copy in copies {
                #expect(copy.title == "title from a")
                #expect(copy.body == "body from b")
                #expect(copy["rank"] as? Int == 3)
            }
            for device in devices { #expect(device.store.conflicts.allSatisfy { $0.discardedLocal.isEmpty }) }
        }
    }
}
