import Dispatch
import Foundation
import StratusStore
import StratusTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A root save killed with SIGKILL leaves all of it or none of it on disk.
///
/// The test binary re-runs itself in a child process, filtered to ``crashHelperWritesUntilKilled()``,
/// which saves batches of books to the root until the parent kills it during a save.
@Suite struct CrashAtomicityTests {
    static let childVariable = "STRATUS_STORE_CRASH_CHILD"
    static let batchSize = 1_000
    static let marker = "STRATUS-CRASH"

    /// The child's side: writes batches through the root context until killed. Does nothing in a normal run.
    @Test func crashHelperWritesUntilKilled() async throws {
        guard let path = ProcessInfo.processInfo.environment[Self.childVariable] else { return }
        let container = PersistentContainer(name: "Crash", model: try LibraryModel.make(), url: URL(fileURLWithPath: path))
        try await container.loadPersistentStores()
        for batch in 0..<100_000 {
            let context = container.newBackgroundContext(parent: .rootContext)
            try await context.perform { context in
                for index in 0..<Self.batchSize {
                    let book = context.insert(entity: "Book")
                    book.setValue("batch \(batch) book \(index) " + String(repeating: "x", count: 64), forKey: "title")
                    book.setValue(batch, forKey: "pages")
                }
                try context.save()
            }
            Self.say("saving \(batch)")
            try await container.rootContext.perform { context in try context.save() }
            Self.say("saved \(batch)")
        }
    }

    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data("\(marker) \(line)\n".utf8))
    }

    /// Kills the child during a root save, five times, and checks every batch on disk is whole or absent.
    ///
    /// The kill lands at 25% to 125% of the time the previous save took, so some rounds kill
    /// the save before its commit (none of the batch) and others after it (all of it).
    @Test func killDuringRootSaveLeavesAllOrNothing() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-crash")
        let fractions = [0.25, 0.5, 0.75, 1.0, 1.25]
        for (round, fraction) in fractions.enumerated() {
            let url = directory.url.appendingPathComponent("store-\(round).sqlite")
            // NB: posix_spawn rather than Foundation's Process, whose run() was seen crashing under parallel tests.
            let outputPath = directory.path("child-\(round).out")
            let process = try SpawnedCommand.start(
                "/proc/self/exe", ["--testing-library", "swift-testing", "--filter", "crashHelperWritesUntilKilled"],
                environment: ProcessInfo.processInfo.environment.merging([Self.childVariable: url.path]) { _, new in new },
                standardOutput: outputPath, standardError: "/dev/null"
            )
            // Kill during the save of batch 1, at a fraction of the time batch 0's save took.
            let target = 1
            let (acknowledged, saveDuration) = try await Self.waitForSave(of: target, from: outputPath, process: process)
            // A delayed read of the output can inflate the measured duration on a loaded machine: cap the wait.
            try await Task.sleep(for: .seconds(min(saveDuration * fraction, 0.2)))
            process.signal(SIGKILL)
            let status = try process.wait()
            #expect(status == 128 + SIGKILL, "round \(round): the child ended by itself with status \(status)")

            let container = PersistentContainer(name: "Reopened", model: try LibraryModel.make(), url: url)
            try await container.loadPersistentStores()
            let counts = try await container.newBackgroundContext().perform { context in
                let newest = try context.fetch(
                    FetchRequest(entityName: "Book", sortDescriptors: [.descending("pages")], fetchLimit: 1))
                let last = Int(newest.first?.value(forKey: "pages", as: Int32.self) ?? 0)
                return try (0...(last + 1)).map { batch in
                    try context.count("Book", PredicateKey<Int32>("pages") == Int32(batch))
                }
            }
            // Every batch is whole or absent, the whole ones come first, and every acknowledged batch is whole.
            let whole = counts.filter { $0 == Self.batchSize }.count
            #expect(counts.allSatisfy { $0 == 0 || $0 == Self.batchSize }, "round \(round): \(counts)")
            #expect(counts.prefix(whole).allSatisfy { $0 == Self.batchSize }, "round \(round): \(counts)")
            #expect(whole > acknowledged, "round \(round): \(counts)")
            #expect(
                try await container.newBackgroundContext().perform { try $0.count("Book") } == whole * Self.batchSize,
                "round \(round): \(counts)")
            #expect(try await container.history(after: nil).count == whole, "round \(round): \(counts)")
            try container.close()
        }
    }

    /// Reads the child's lines until it announces the save of `batch`.
    ///
    /// - Returns: The last batch the child acknowledged as saved, and how long (in seconds) the save of batch 0 took.
    private static func waitForSave(
        of batch: Int, from path: String, process: SpawnedProcess
    ) async throws
        -> (acknowledged: Int, saveDuration: Double)
    {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                var buffer = ""
                var acknowledged = -1
                var started: [Int: Date] = [:]
                var duration = 0.0
                let deadline = Date().addingTimeInterval(60)
                var offset = 0
                while Date() < deadline {
                    let contents = FileManager.default.contents(atPath: path) ?? Data()
                    let data = contents.count > offset ? contents[offset...] : Data()
                    offset = contents.count
                    if data.isEmpty {
                        guard process.isRunning else {
                            continuation.resume(
                                throwing: StoreError(
                                    code: StoreError.Code(rawValue: "crashHelperMissing"),
                                    message: "the child test process ended before saving batch \(batch) "
                                        + "(status \(process.terminationStatus ?? -1)); output: \(buffer.suffix(500))"))
                            return
                        }
                        usleep(1_000)
                        continue
                    }
                    let now = Date()
                    buffer += String(decoding: data, as: UTF8.self)
                    for line in buffer.split(separator: "\n") where line.hasPrefix(marker) {
                        let words = line.split(separator: " ")
                        guard words.count == 3, let number = Int(words[2]) else { continue }
                        if words[1] == "saving" && started[number] == nil { started[number] = now }
                        if words[1] == "saved" && number > acknowledged {
                            acknowledged = number
                            duration = now.timeIntervalSince(started[number] ?? now)
                        }
                        if words[1] == "saving" && number == batch {
                            continuation.resume(returning: (acknowledged, duration))
                            return
                        }
                    }
                }
                continuation.resume(
                    throwing: StoreError(
                        code: StoreError.Code(rawValue: "crashHelperTimeout"),
                        message: "the child test process did not reach batch \(batch) within 60 s"))
            }
        }
    }
}
