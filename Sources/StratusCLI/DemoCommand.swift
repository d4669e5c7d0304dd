import Foundation
import StratusClient
import StratusStore
import StratusStoreSync

/// `stratus demo`: an embedded server and two simulated devices sync notes, narrated step by step.
enum DemoCommand {
    static let usage = """
        Usage: stratus demo

        Starts a server on 127.0.0.1 (an ephemeral port, data in a temporary directory) and two
        simulated devices, A and B, each with its own local store, in this process, and shows in a few
        seconds: a note created on A reaching B by push; edits made on both while B is offline merging;
        a deletion on B reaching A; B's outbox replaying by itself when it reconnects. Exits 0 when
        every step held, 1 otherwise. Everything is removed afterwards.
        """

    /// Runs the demo; returns whether every step held.
    static func run() async throws -> Bool {
        let started = ContinuousClock.now
        let world = try await DemoWorld.start()
        let narrator = Narrator()
        print("Stratus demo: one server and two devices, all in this process.\n")
        print("  server  \(world.baseURL.absoluteString)  (SQLite and stores in \(world.directory.path))")
        let a = try await world.device("A")
        let b = try await world.device("B")
        print("  A, B    two devices, each with its own StratusStore file, synced by StratusStoreSync with push on\n")
        do {
            try await createdOnAArrivesOnB(a, b, narrator)
            try await offlineEditsMerge(a, b, narrator)
            try await deletionOnBReachesA(a, b, narrator)
            try await reconnectionReplaysTheOutbox(a, b, narrator)
        } catch {
            narrator.fail("stopped: \(error)")
        }
        await world.stop([a, b])
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if narrator.failures == 0 {
            print("Every step held (\(String(format: "%.1f", seconds)) s). Nothing was left behind.")
        } else {
            print("\(narrator.failures) check(s) failed.")
        }
        return narrator.failures == 0
    }

    /// "1 change waits", "3 changes wait".
    static func changes(_ count: Int) -> String { count == 1 ? "1 change waits" : "\(count) changes wait" }

    static let title = "Buy oat milk"
    static let renamed = "Buy oat milk ×2"
    static let body = "the barista kind"

    static func createdOnAArrivesOnB(_ a: DemoDevice, _ b: DemoDevice, _ narrator: Narrator) async throws {
        narrator.step("A note created on A appears on B by push")
        try await a.edit { context in
            let folder = context.insert(entity: "Folder")
            folder.setValue("Groceries", forKey: "name")
            let note = context.insert(entity: "Note")
            note.setValue(title, forKey: "title")
            note.setValue(folder, forKey: "folder")
        }
        narrator.say("A", "creates \"\(title)\" in the folder Groceries and saves its store")
        await narrator.expect("B", "has it, folder and all, without asking: the server pushed, B fetched") {
            try await b.notes() == [DemoNoteValues(title: title, body: nil, folder: "Groceries")]
        }
    }

    static func offlineEditsMerge(_ a: DemoDevice, _ b: DemoDevice, _ narrator: Narrator) async throws {
        narrator.step("Both edit the note while B is offline; the edits merge")
        b.network.isOffline = true
        narrator.say("B", "goes offline")
        try await b.edit { context in
            for note in try context.fetch(FetchRequest(entityName: "Note")) { note.setValue(body, forKey: "body") }
        }
        try await b.sync.captureLocalChanges()
        let waiting = await b.pending()
        narrator.say("B", "writes the body \"\(body)\" — \(changes(waiting)) in its outbox")
        try await a.edit { context in
            for note in try context.fetch(FetchRequest(entityName: "Note")) { note.setValue(renamed, forKey: "title") }
        }
        try await a.sync.captureLocalChanges()
        narrator.say("A", "renames it \"\(renamed)\" (uploaded at once)")
        b.network.isOffline = false
        narrator.say("B", "comes back online; nobody calls sync: the reconnection retry replays the outbox")
        let merged = DemoNoteValues(title: renamed, body: body, folder: "Groceries")
        await narrator.expect("A+B", "both hold \"\(renamed)\" with the body \"\(body)\": a three-way merge, no edit lost") {
            let (onA, onB, pending) = (try await a.notes(), try await b.notes(), await b.pending())
            return onA == [merged] && onB == [merged] && pending == 0
        } observed: {
            "A holds \(try await a.notes()), B holds \(try await b.notes()), \(changes(await b.pending())) in B's outbox"
        }
    }

    static func deletionOnBReachesA(_ a: DemoDevice, _ b: DemoDevice, _ narrator: Narrator) async throws {
        narrator.step("A deletion on B reaches A")
        try await b.edit { context in
            for note in try context.fetch(FetchRequest(entityName: "Note")) { context.delete(note) }
        }
        narrator.say("B", "deletes \"\(renamed)\"")
        await narrator.expect("A", "no longer has it") { try await a.notes().isEmpty }
    }

    static func reconnectionReplaysTheOutbox(_ a: DemoDevice, _ b: DemoDevice, _ narrator: Narrator) async throws {
        narrator.step("Reconnection replays the outbox")
        let titles = ["Call the plumber", "Return the library books", "Water the basil"]
        b.network.isOffline = true
        try await b.edit { context in
            let folder = try context.fetch(FetchRequest(entityName: "Folder")).first
            for title in titles {
                let note = context.insert(entity: "Note")
                note.setValue(title, forKey: "title")
                note.setValue(folder, forKey: "folder")
            }
        }
        try await b.sync.captureLocalChanges()
        let waiting = await b.pending()
        narrator.say("B", "goes offline and writes \(titles.count) notes — \(changes(waiting)) in its outbox")
        b.network.isOffline = false
        narrator.say("B", "comes back online")
        let expected = titles.map { DemoNoteValues(title: $0, body: nil, folder: "Groceries") }
        await narrator.expect("A", "has all \(titles.count) notes, in Groceries; B's outbox is empty") {
            let (onA, pending) = (try await a.notes(), await b.pending())
            return onA == expected && pending == 0
        }
    }
}

/// Prints the steps and checks, and counts the failures.
final class Narrator {
    private(set) var failures = 0
    private var steps = 0
    private var mark = ContinuousClock.now

    func step(_ title: String) {
        steps += 1
        print("\(steps)  \(title)")
        mark = ContinuousClock.now
    }

    func say(_ who: String, _ what: String) {
        print("   \(who.padding(toLength: 4, withPad: " ", startingAt: 0))\(what)")
        fflush(nil)
        mark = ContinuousClock.now
    }

    /// Waits up to 15 s for `condition`, then prints ✓ with the time it took, or ✗ with what
    /// `observed` describes (the state that did not hold).
    func expect(
        _ who: String, _ what: String, _ condition: () async throws -> Bool, observed: (() async throws -> String)? = nil
    ) async {
        let deadline = ContinuousClock.now + .seconds(15)
        var held = false
        while !held, ContinuousClock.now < deadline {
            held = (try? await condition()) ?? false
            if !held { try? await Task.sleep(for: .milliseconds(5)) }
        }
        let elapsed = ContinuousClock.now - mark
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        if held {
            say(who, "✓ \(what) (\(milliseconds) ms)")
        } else {
            failures += 1
            say(who, "✗ expected: \(what) — not true after \(milliseconds) ms")
            if let observed { say("", "observed: " + ((try? await observed()) ?? "unreadable")) }
        }
        print("")
    }

    func fail(_ message: String) {
        failures += 1
        print("   ✗ \(message)")
    }
}
