import Foundation
import StratusServer
import StratusTesting

/// One seed of the simulation: the seed fixes the devices, their clock skews, the fault rates and
/// every step; the scheduler runs one step at a time (each awaited to the end, what it set off
/// included), so the same seed makes the same requests with the same faults.
struct SimRun {
    let seed: Int
    private var random: SeededGenerator
    private var devices: [any SimDevice] = []
    private var online: [Bool] = []
    /// Pushes waiting for each device (a push only says "something changed": delivered, it syncs).
    private var pushes: [Int] = []
    private var oracle = SimOracle()
    private var counter = 0
    private var step = 0
    /// Steps left until a killed server comes back; limits in force until then.
    private var downFor = 0
    private var limitedFor = 0
    /// Where the run's server backup is, once taken (and not yet restored).
    private var backup: URL?
    /// Whether the database was restored: a restore that the server moved past before a device
    /// came back is not detected by its token (0009, "where this slice stops"); the documented
    /// remedy, a forced sync on every device, runs at the end.
    private var restored = false
    private var directory = URL(fileURLWithPath: "/")
    /// Devices that have not synced since the zone was last deleted and made again (or the database restored).
    private var stale: Set<Int> = []
    let journal: SimJournal

    init(seed: Int, verbose: Bool = false) {
        self.seed = seed
        journal = SimJournal(verbose: verbose)
        random = SeededGenerator(seed: UInt64(seed) &* 0x2545_F491_4F6C_DD1D &+ 17)
    }

    private mutating func next(_ bound: Int) -> Int { Int(random.next() % UInt64(max(1, bound))) }
    private mutating func chance(_ perThousand: Int) -> Bool { next(1000) < perThousand }

    /// Runs the seed in `directory`; returns what the invariants found wrong.
    mutating func run(directory: URL) async throws -> [String] {
        let world = try await SimWorld.open(journal: journal, directory: directory)
        do {
            let failures = try await run(world, directory: directory)
            await world.stop()
            return failures
        } catch {
            for device in devices { try? await device.quit() }
            await world.stop()
            throw error
        }
    }

    private mutating func run(_ world: SimWorld, directory: URL) async throws -> [String] {
        self.directory = directory
        let count = 2 + next(3)
        var rates = FaultRates(dropped: next(60), answerLost: next(60), duplicated: next(40))
        rates.tokenExpired = next(30)
        journal.append("seed \(seed): \(count) devices, \(rates)")
        for index in 0..<count {
            let name = "d\(index)"
            let network = world.network(name: name, seed: UInt64(seed) &* 31 &+ UInt64(index))
            network.rates = rates
            let skew: Int64 = [0, 0, 1_500, -2_000, 3_600_000, -3_600_000][next(6)]
            // Device 0 is always a store; the others are plain entities one time in three.
            let plain = index > 0 && next(3) == 0
            journal.append("\(name): \(plain ? "plain entities" : "a store"), clock \(skew) ms off")
            let clock = world.clock.dates(skew: skew)
            let device: any SimDevice =
                plain
                ? try await SimPlainDevice(name: name, network: network, directory: directory, clock: clock, zoneName: SimWorld.zoneName)
                : try await SimStoreDevice.launch(name: name, network: network, directory: directory, clock: clock, zoneName: SimWorld.zoneName)
            devices.append(device)
            online.append(true)
            pushes.append(0)
        }
        let steps = 25 + next(20)
        for _ in 0..<steps {
            step += 1
            world.clock.advance(by: 1_000 + Int64(next(2_000)))
            try await self.step(world)
        }
        return try await finish(world)
    }

    private mutating func step(_ world: SimWorld) async throws {
        try await serverStep(world)
        let index = next(devices.count)
        let device = devices[index]
        let roll = next(100)
        switch roll {
        case 0..<45: try await appStep(index)
        case 45..<60: await attempt(index, "syncs") { try await $0.sync() }
        case 60..<63: await attempt(index, "runs a forced sync") { try await $0.forcedSync() }
        case 63..<72:
            online[index].toggle()
            device.network.isOffline = !online[index]
            journal.append("\(device.name) goes \(online[index] ? "online" : "offline")")
        case 72..<77: await attempt(index, "relaunches") { try await $0.relaunch() }
        case 77..<92: await pushStep(index)
        default: try await faultStep(world)
        }
    }

    /// Brings back a killed server, lifts limits whose time is up.
    private mutating func serverStep(_ world: SimWorld) async throws {
        if downFor > 0 {
            downFor -= 1
            if downFor == 0 {
                try await world.restartServer()
                world.isDown = false
                journal.append("the server starts again from its files")
            }
        }
        if limitedFor > 0, downFor == 0 {
            limitedFor -= 1
            if limitedFor == 0 {
                try await world.restartServer()
                journal.append("the server restarts without limits")
            }
        }
    }

    private mutating func faultStep(_ world: SimWorld) async throws {
        switch next(10) {
        case 0..<4 where downFor == 0:
            world.isDown = true
            downFor = 1 + next(3)
            journal.append("the server is killed for \(downFor) steps")
        case 4..<6 where downFor == 0 && limitedFor == 0:
            let throttle = next(2) == 0
            var limits = QuotaLimits.unlimited
            if throttle {
                limits.requestsPerSecond = 1
                limits.burst = Double(1 + next(4))
            } else {
                limits.privateBytesPerUser = Int64(1_000 + next(6_000))
            }
            try await world.restartServer(limits)
            limitedFor = 2 + next(4)
            journal.append(
                "the server restarts with \(throttle ? "a throttle of \(limits.burst) requests" : "a quota of \(limits.privateBytesPerUser) bytes") for \(limitedFor) steps"
            )
        case 6 where downFor == 0:
            try await world.resetZone()
            oracle.zoneReset(step: step)
            stale = Set(devices.indices)
            journal.append("the zone is deleted and made again")
        case 7 where downFor == 0 && limitedFor == 0:
            // A backup, then later its restore: the database goes back in time, and every token
            // handed out since is refused (the Stratus server's "expired" sync token).
            if let backup {
                try await world.restore(from: backup)
                self.backup = nil
                restored = true
                oracle.zoneReset(step: step)
                stale = Set(devices.indices)
                journal.append("the server's database is restored from the backup")
            } else {
                let url = directory.appendingPathComponent("backup", isDirectory: true)
                try await world.backUp(to: url)
                backup = url
                journal.append("the server's database is backed up")
            }
        default:
            return
        }
    }

    /// A push for device `index`: delivered (a sync), dropped, or delivered and kept (a duplicate);
    /// one not delivered now waits (delayed — and pushes carry nothing, so later ones pass it).
    private mutating func pushStep(_ index: Int) async {
        guard pushes[index] > 0 else { return }
        switch next(10) {
        case 0..<2:
            pushes[index] -= 1
            journal.append("a push to \(devices[index].name) is dropped")
        case 2..<4:
            await attempt(index, "gets a push (duplicated)") { try await $0.sync() }
        default:
            pushes[index] -= 1
            await attempt(index, "gets a push") { try await $0.sync() }
        }
    }

    /// Runs a sync-like step; a failure (the network, the server) is logged, never fatal. Every
    /// other device is sent a push (the server saw changes, or might have).
    private mutating func attempt(_ index: Int, _ what: String, _ body: (any SimDevice) async throws -> Void) async {
        let device = devices[index]
        do {
            try await body(device)
            try await device.settle()
            stale.remove(index)
            journal.append("\(device.name) \(what)")
        } catch {
            journal.append("\(device.name) \(what): failed (\(Self.short(error)))")
        }
        for other in devices.indices where other != index { pushes[other] += 1 }
    }

    static func short(_ error: any Error) -> String {
        let text = String(describing: error)
        return text.count > 160 ? String(text.prefix(160)) + "…" : text
    }

    // MARK: The apps

    private mutating func appStep(_ index: Int) async throws {
        let device = devices[index]
        let notes = try await device.notes()
        let folders = try await device.folders()
        counter += 1
        switch next(100) {
        case 0..<18 where notes.count < 6:
            let title = "n\(counter)"
            let values = NoteValues(body: "b\(counter)", rank: counter, folder: folders.isEmpty || next(2) == 0 ? nil : folders[next(folders.count)])
            try await device.createNote(title, values)
            oracle.noteCreated(title, values)
            journal.append("\(device.name) creates \(title) \(values)")
        case 0..<80 where !notes.isEmpty:
            let note = notes[next(notes.count)]
            var values = note.values
            let field = NoteValues.Field.allCases[next(3)]
            switch field {
            case .body: values.body = "b\(counter)"
            case .rank: values.rank = counter
            case .folder:
                let choices = ([nil] + folders.map { Optional($0) }).filter { $0 != values.folder }
                guard !choices.isEmpty else { return }
                values.folder = choices[next(choices.count)]
            }
            try await device.edit(note.title, field, to: values)
            oracle.noteEdited(note.title, field, from: note.values, to: values, step: step, stale: stale.contains(index))
            journal.append("\(device.name) sets \(field) of \(note.title) to \(values)")
        case 80..<88 where !notes.isEmpty:
            let title = notes[next(notes.count)].title
            try await device.deleteNote(title)
            oracle.noteDeleted(title, step: step, stale: stale.contains(index))
            journal.append("\(device.name) deletes \(title)")
        case 88..<96 where folders.count < 3:
            let name = "f\(counter)"
            try await device.createFolder(name)
            journal.append("\(device.name) creates folder \(name)")
        case 96..<100 where !folders.isEmpty:
            let name = folders[next(folders.count)]
            let cascaded = try await device.deleteFolder(name)
            oracle.folderDeleted(name)
            for title in cascaded { oracle.noteDeleted(title, step: step, stale: stale.contains(index)) }
            journal.append("\(device.name) deletes folder \(name) and with it \(cascaded)")
        default:
            return
        }
        // The app's save sets off a capture and, online, an upload.
        do {
            try await device.settle()
        } catch {
            journal.append("\(device.name)'s upload failed (\(Self.short(error)))")
        }
        for other in devices.indices where other != index { pushes[other] += 1 }
    }

    // MARK: The end

    /// Lifts every fault, brings every device online and syncs each three times; then checks.
    private mutating func finish(_ world: SimWorld) async throws -> [String] {
        if world.isDown || limitedFor > 0 {
            try await world.restartServer()
            world.isDown = false
        }
        var failures: [String] = []
        for (index, device) in devices.enumerated() {
            device.network.rates = FaultRates()
            device.network.isOffline = false
            online[index] = true
        }
        journal.append("-- every fault lifted; final syncs\(restored ? " (forced first: the database was restored)" : "")")
        for device in devices where restored {
            do {
                try await device.forcedSync()
            } catch {
                journal.append("\(device.name) forced sync after the restore: failed (\(Self.short(error)))")
            }
        }
        for round in 0..<3 {
            for device in devices {
                do {
                    try await device.sync()
                    try await device.settle()
                } catch  where round < 2 {
                    journal.append("\(device.name) final sync \(round + 1): failed (\(Self.short(error)))")
                } catch {
                    failures.append("\(device.name)'s last final sync failed: \(error)")
                }
            }
        }
        let server = try await world.serverState()
        var states: [(name: String, notes: [SimNote], folders: [String])] = []
        for device in devices {
            states.append((device.name, try await device.notes(), try await device.folders()))
            let pending = await device.pendingCount()
            if pending != 0 { failures.append("\(device.name) still has \(pending) changes pending") }
        }
        failures += oracle.check(server: server.notes, serverFolders: server.folders, devices: states)
        for device in devices { try await device.quit() }
        return failures
    }

    /// The scheduler's steps (without requests and debug lines).
    var log: [String] { journal.all.filter { !$0.hasPrefix(" ") } }

    /// Every request each device made, with its fault.
    var traces: [String] { devices.flatMap { $0.network.trace } }
}
