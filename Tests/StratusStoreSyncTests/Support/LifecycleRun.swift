import Foundation
import StratusClient
import StratusStore
import StratusStoreSync
import StratusSync
import StratusTesting
import Testing

/// One seeded run of the life-cycle property: random steps on two or three devices — edits made
/// online and offline, network switches, syncs, forced syncs, relaunches and crashes at a request
/// (the task cancelled, the network gone, then a relaunch on the same files) — checked after every
/// completed sync against the model (``DeviceModel``): the server holds what the policy's rules
/// say, and the device's store holds what the server holds.
struct LifecycleRun {
    let seed: Int
    let server: TestCloudKitServer
    private var random: SeededGenerator
    private var devices: [LifecycleDevice] = []
    private let policy: ModelPolicy
    private let reader: ServerReader
    private var counter = 0
    /// The server as the last check read it: only completed syncs change it, so an unexpected
    /// change made in between shows up as a difference from the model at the next check.
    private var lastServer: [String: ServerNote]?
    /// What happened, for the failure message.
    private(set) var log: [String] = []
    /// Differences from the model.
    private(set) var failures: [String] = []

    init(seed: Int, server: TestCloudKitServer) {
        self.seed = seed
        self.server = server
        random = SeededGenerator(seed: UInt64(seed) &+ 0x9E37_79B9_7F4A_7C15)
        policy = seed % 2 == 0 ? .threeWayMerge : .latestChangeWins
        reader = ServerReader(server: server, zoneName: "Life\(seed)")
    }

    /// Runs the steps, then brings every device online and syncs each twice; returns the failures.
    mutating func run(directory: URL) async throws -> [String] {
        let count = (seed / 2) % 2 == 0 ? 2 : 3
        log.append("seed \(seed): \(count) devices, \(policy)")
        for index in 0..<count {
            devices.append(
                try await LifecycleDevice.launch(
                    name: "d\(index)", directory: directory, server: server, zoneName: "Life\(seed)",
                    policy: policy == .threeWayMerge ? .threeWayMerge : .latestChangeWins))
        }
        // Some devices start offline, so edits of the same note on several devices meet more often.
        for index in devices.indices.dropFirst() where next(2) == 0 { devices[index].setOnline(false) }
        let steps = 11 + next(7)
        for _ in 0..<steps where failures.isEmpty {
            server.advanceClock(by: .seconds(1))
            try await step(Int(random.next() % UInt64(devices.count)))
        }
        for round in 0..<2 where failures.isEmpty {
            for index in devices.indices {
                if devices[index].isStopped { try await relaunch(index, online: true) }
                if !devices[index].online { devices[index].setOnline(true) }
                server.advanceClock(by: .seconds(1))
                try await synced(index, "final sync \(round + 1)") { try await $0.sync.sync() }
            }
        }
        let final = try await reader.notes().mapValues(\.values)
        for device in devices where failures.isEmpty {
            let held = try await device.notes()
            if held != final { failures.append("after the final syncs \(device.name) holds \(held), the server \(final)") }
            let pending = await device.sync.controller.status.pendingCount
            if pending != 0 { failures.append("after the final syncs \(device.name) still has \(pending) changes pending") }
        }
        for device in devices { try await device.quit() }
        return failures
    }

    private mutating func next(_ bound: Int) -> Int { Int(random.next() % UInt64(max(1, bound))) }

    /// One random step on device `index`.
    private mutating func step(_ index: Int) async throws {
        let device = devices[index]
        if device.isStopped { return try await stoppedStep(index) }
        let notes = try await device.notes().count
        switch next(100) {
        case 0..<10 where notes < 4: try await createNote(index)
        case 0..<44: try await editNote(index)
        case 44..<48: try await deleteNote(index)
        case 48..<53: try await createFolder(index)
        case 53..<70:
            device.setOnline(!device.online)
            log.append("\(device.name) goes \(device.online ? "online" : "offline")")
        case 70..<79:
            log.append("\(device.name) syncs\(device.online ? "" : " (offline)")")
            try await synced(index, "sync") { try await $0.sync.sync() }
        case 79..<85:
            log.append("\(device.name) runs a forced sync\(device.online ? "" : " (offline)")")
            try await synced(index, "forced sync") { try await $0.sync.controller.syncEntities(forced: true) }
        case 85..<90:
            try await relaunch(index, online: next(3) > 0)
        case 90..<95:
            log.append("\(device.name) quits; the app goes on editing without sync")
            try await device.quitSync()
        default:
            try await crash(index)
        }
    }

    /// A step on a device whose app runs without sync: an edit (saved in the history, captured by a
    /// later launch), or that launch.
    private mutating func stoppedStep(_ index: Int) async throws {
        if next(2) == 0 {
            try await editNote(index)
        } else {
            try await relaunch(index, online: next(3) > 0)
        }
    }

    /// Quits and launches again; online, the launch syncs. Half the time the app syncs just before
    /// quitting, as an app does when it goes to the background, and quits the moment that returns.
    private mutating func relaunch(_ index: Int, online: Bool) async throws {
        let syncFirst = online && devices[index].online && !devices[index].isStopped && next(2) == 0
        log.append("\(devices[index].name) \(syncFirst ? "syncs, quits at once and " : "")relaunches \(online ? "online" : "offline")")
        if online {
            try await synced(index, "relaunch") { device in
                if syncFirst { try await device.sync.sync() }
                try await device.relaunch(online: true)
            }
        } else {
            try await devices[index].relaunch(online: false)
        }
    }

    /// A sync cut at a random request (the process dies there), then a relaunch online: together
    /// they must do what one sync does.
    private mutating func crash(_ index: Int) async throws {
        let device = devices[index]
        guard device.online else { return }
        let request = 1 + next(6)
        let moment: CrashTransport.Moment = next(2) == 0 ? .beforeSending : .afterAnswer
        log.append("\(device.name) dies at request \(request) (\(moment)), then relaunches")
        try await synced(index, "crash and relaunch") { device in
            device.crash.arm(at: request, moment)
            let forced = request % 2 == 0
            let sync = device.sync
            let task = Task { () async throws -> Void in
                if forced { _ = try await sync.controller.syncEntities(forced: true) } else { try await sync.sync() }
            }
            _ = await task.result
            try await device.relaunch(online: true)
        }
    }

    // MARK: Changes

    private mutating func createNote(_ index: Int) async throws {
        let before = try await serverNow()
        counter += 1
        let title = "n\(seed)-\(counter)"
        let folders = try await devices[index].folders()
        let values = NoteValues(body: "b\(counter)", rank: counter, folder: folders.isEmpty || next(2) == 0 ? nil : folders[next(folders.count)])
        let at = Date(timeIntervalSince1970: Double(server.now) / 1000)
        try await devices[index].edit { context in
            let note = context.insert(entity: "Note")
            note.setValue(title, forKey: "title")
            Self.write(values, fields: Set(NoteValues.Field.allCases), to: note, in: context)
        }
        devices[index].model.pending[title] = .create(values, at: at)
        try await afterChange(index, "creates \(title) \(values)", before: before)
    }

    private mutating func editNote(_ index: Int) async throws {
        let before = try await serverNow()
        let notes = try await devices[index].notes()
        guard !notes.isEmpty else { return }
        let title = notes.keys.sorted()[next(notes.count)]
        counter += 1
        let field = NoteValues.Field.allCases[next(3)]
        var values = notes[title] ?? NoteValues()
        switch field {
        case .body: values.body = "b\(counter)"
        case .rank: values.rank = counter
        case .folder:
            // Always another folder (or none): an edit that writes the value already there is no edit.
            let choices = ([nil] + (try await devices[index].folders()).map { Optional($0) }).filter { $0 != values.folder }
            guard !choices.isEmpty else { return }
            values.folder = choices[next(choices.count)]
        }
        let at = Date(timeIntervalSince1970: Double(server.now) / 1000)
        let written = values
        try await devices[index].edit { context in
            guard let note = try context.fetch(FetchRequest(entityName: "Note")).first(where: { $0.value(forKey: "title") as? String == title })
            else { return }
            Self.write(written, fields: [field], to: note, in: context)
        }
        devices[index].model.edited(title, fields: [field], to: values, at: at)
        try await afterChange(index, "sets \(field) of \(title) to \(values)", before: before)
    }

    private mutating func deleteNote(_ index: Int) async throws {
        let before = try await serverNow()
        let notes = try await devices[index].notes()
        guard !notes.isEmpty else { return }
        let title = notes.keys.sorted()[next(notes.count)]
        try await devices[index].edit { context in
            for note in try context.fetch(FetchRequest(entityName: "Note")) where note.value(forKey: "title") as? String == title {
                context.delete(note)
            }
        }
        devices[index].model.deleted(title)
        try await afterChange(index, "deletes \(title)", before: before)
    }

    private mutating func createFolder(_ index: Int) async throws {
        let before = try await serverNow()
        counter += 1
        let name = "f\(counter)"
        try await devices[index].edit { context in context.insert(entity: "Folder").setValue(name, forKey: "name") }
        try await afterChange(index, "creates folder \(name)", before: before)
    }

    /// After a local change: captured; online, it is uploaded at once and the device syncs (checked
    /// against the server as it was `before` the change).
    private mutating func afterChange(_ index: Int, _ what: String, before: [String: ServerNote]) async throws {
        let device = devices[index]
        log.append("\(device.name) \(device.isStopped ? "(without sync) " : device.online ? "" : "(offline) ")\(what)")
        guard device.online, !device.isStopped else {
            if !device.isStopped { try await device.sync.waitForIdle() }
            return
        }
        try await synced(index, "sync after the change", before: before) { try await $0.sync.sync() }
    }

    private static func write(_ values: NoteValues, fields: Set<NoteValues.Field>, to note: ManagedObject, in context: ObjectContext) {
        if fields.contains(.body) { note.setValue(values.body, forKey: "body") }
        if fields.contains(.rank) { note.setValue(values.rank.map { Int32($0) }, forKey: "rank") }
        if fields.contains(.folder) {
            let folder = values.folder.flatMap { name in
                (try? context.fetch(FetchRequest(entityName: "Folder")))?.first { $0.value(forKey: "name") as? String == name }
            }
            note.setValue(folder, forKey: "folder")
        }
    }

    // MARK: Checking

    private mutating func serverNow() async throws -> [String: ServerNote] {
        if let lastServer { return lastServer }
        let read = try await reader.notes()
        lastServer = read
        return read
    }

    /// Runs a step that ends with device `index` synced (offline it may fail: nothing may change),
    /// and checks the server and the device's store against the model.
    private mutating func synced(
        _ index: Int, _ what: String, before known: [String: ServerNote]? = nil, _ body: (LifecycleDevice) async throws -> Void
    ) async throws {
        let device = devices[index]
        let before: [String: ServerNote]
        if let known { before = known } else { before = try await serverNow() }
        let online = device.online
        do {
            try await body(device)
        } catch  where !online {
            // Offline: the sync fails and changes nothing.
        }
        try await device.sync.waitForIdle()
        // The store first: what the sync did must be in it when the sync returns, not a moment later.
        let held = try await device.notes()
        let after = try await reader.notes()
        lastServer = after
        guard device.online else {
            if after != before { failures.append("\(device.name)'s failed \(what) changed the server: \(before) → \(after)") }
            return
        }
        let expected = device.model.upload(onto: before, policy: policy)
        let found = after.mapValues(\.values)
        if found != expected {
            failures.append("after \(device.name)'s \(what) the server holds \(found); the model expects \(expected)")
        }
        if held != found { failures.append("after \(device.name)'s \(what) its store holds \(held), the server \(found)") }
        devices[index].model.pending = [:]
        devices[index].model.base = after
    }
}
