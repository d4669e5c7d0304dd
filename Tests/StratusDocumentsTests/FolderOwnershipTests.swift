import Foundation
import StratusClient
import StratusClientCommands
import StratusDocuments
import StratusTesting
import Synchronization
import Testing

/// One process owns a synced folder (issue 22, #6): a second container refuses with a clear error, and
/// the README's tour — `stratus docs sync DIR &` then `stratus docs conflicts DIR` — works without
/// duplicating or losing anything. Also: the CLI remembers `--on-demand`.
/// Serialized: each test runs a server and devices; one at a time leaves the 2 cores to other suites' servers.
@Suite(.serialized) struct FolderOwnershipTests {
    @Test func aSecondContainerOnTheSameFolderIsRefusedUntilTheFirstCloses() async throws {
        try await DocumentsFixture.run { fixture in
            let a = try fixture.device("A")
            #expect {
                _ = try fixture.device("A")
            } throws: { error in
                (error as? DocumentsError)?.code.rawValue == "folderInUse" && "\(error)".contains("\(getpid())")
            }
            try a.write("x.txt", "x")
            try await a.sync()
            await a.documents.close()
            let again = try fixture.device("A")
            #expect(try await again.sync().isEmpty)
        }
    }

    /// A child process spawned by another thread shares the lock file's open description from its `fork`
    /// until its `exec`; here a child keeps a copy for good (a duplicate without close-on-exec). Closing
    /// the container still frees the folder at once: a bare `close` left it locked by the copy.
    @Test func closingFreesTheFolderWhileAChildHoldsACopyOfTheLock() async throws {
        try await DocumentsFixture.run { fixture in
            let a = try fixture.device("A")
            let lockPath = a.documents.directory.appendingPathComponent(".stratus/lock").resolvingSymlinksInPath().path
            let descriptor = try #require(Self.openDescriptor(of: lockPath))
            let copy = dup(descriptor)  // a duplicate loses close-on-exec: the child keeps it
            let child = try SpawnedCommand.start(
                "/bin/sleep", ["30"], environment: [:], standardOutput: "/dev/null", standardError: "/dev/null")
            close(copy)
            defer {
                child.signal(SIGKILL)
                _ = try? child.wait()
            }
            await a.documents.close()
            let again = try fixture.device("A")
            #expect(try await again.sync().isEmpty)
        }
    }

    /// `close()` during a sync waits for it: the sync ends normally with every file uploaded, the
    /// folder is released only then, later calls throw `closed`, and a new container finds nothing
    /// left to do. (Before, close released the folder and the state database under the running sync.)
    @Test func closingDuringASyncWaitsForItBeforeFreeingTheFolder() async throws {
        try await DocumentsFixture.run { fixture in
            let a = try fixture.device("A")
            for index in 0..<12 { try a.write("f\(index).txt", "content \(index)") }
            let closing = Mutex<Task<Void, Never>?>(nil)
            let documents = a.documents
            a.transport.onRequest { request in
                guard request.url.path.contains("/assets/upload") else { return }
                closing.withLock { task in
                    if task == nil { task = Task { await documents.close() } }
                }
            }
            let report = try await a.sync()
            a.transport.onRequest(nil)
            let close = try #require(closing.withLock { $0 }, "the sync uploaded nothing")
            await close.value
            #expect(report.bytesUploaded > 0)
            await #expect {
                try await a.sync()
            } throws: { error in
                (error as? DocumentsError)?.code == .closed
            }
            let again = try fixture.device("A")
            #expect(try await again.sync().isEmpty)
            #expect(try await fixture.serverRecordNames().count == 12)
        }
    }

    /// The descriptor of this process open on `path`, found through `/proc/self/fd`.
    private static func openDescriptor(of path: String) -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.compactMap(Int32.init).first { descriptor in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")) == path
        }
    }

    /// #6: a watcher runs in its own process; 40 files appear; `docs conflicts` runs meanwhile. It answers from
    /// the watcher's state instead of syncing the folder a second time: no twins, nothing missing.
    @Test func docsConflictsBesideARunningWatcherNeitherDuplicatesNorLoses() async throws {
        try await DocumentsFixture.run { fixture in
            let folder = fixture.directory.url.appendingPathComponent("watched")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let flags = cliFlags(fixture)
            let log = fixture.directory.path("watcher.out")
            let watcher = try SpawnedCommand.start(
                try StratusChildProcess.executable().path, ["docs", "sync", folder.path, "--device", "W", "--interval", "2"] + flags,
                environment: [:], standardOutput: log, standardError: fixture.directory.path("watcher.err"))
            defer {
                watcher.signal(SIGKILL)
                _ = try? watcher.wait()
            }
            try await waitFor { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("watching") }
            for index in 0..<40 { try Data("file \(index)".utf8).write(to: folder.appendingPathComponent("f\(index).txt")) }
            try await Task.sleep(for: .milliseconds(300))  // the tour's timing: the second command starts while the watcher uploads
            let listed = try await run(["conflicts", folder.path] + flags)
            #expect(listed.contains("no conflicts"))
            #expect(listed.contains { $0.contains("pid \(watcher.pid)") }, "it says another process owns the folder")
            try await waitFor(timeout: .seconds(90)) { (try? await fixture.serverRecordNames().count) == 40 }
            let b = try fixture.device("B")
            try await b.sync()
            #expect(try b.files() == (0..<40).map { "f\($0).txt" }.sorted())
            #expect(try await fixture.serverRecordNames().count == 40, "no twins")
        }
    }

    /// `--on-demand` is remembered: a later `docs conflicts` or `docs download` without it downloads no
    /// placeholder, not even one whose document changed or a document that is new.
    @Test func onDemandIsRememberedByLaterCommands() async throws {
        try await DocumentsFixture.run { fixture in
            let a = try fixture.device("A")
            try a.write("big.bin", try randomBytes(100 << 10))
            try a.write("small.txt", "small")
            try await a.sync()
            let lazy = fixture.directory.url.appendingPathComponent("lazy").path
            let flags = cliFlags(fixture)
            _ = try await run(["sync", lazy, "--once", "--on-demand"] + flags)
            try a.write("big.bin", try randomBytes(100 << 10))
            try a.write("new.bin", try randomBytes(10 << 10))
            try await a.sync()
            _ = try await run(["conflicts", lazy] + flags)
            _ = try await run(["download", lazy, "small.txt"] + flags)
            #expect(FileManager.default.fileExists(atPath: lazy + "/small.txt"))
            #expect(!FileManager.default.fileExists(atPath: lazy + "/big.bin"), "a changed placeholder stays one")
            #expect(!FileManager.default.fileExists(atPath: lazy + "/new.bin"), "a new document is a placeholder")
        }
    }

    private func cliFlags(_ fixture: DocumentsFixture) -> [String] {
        [
            "--server", fixture.server.http.url("").absoluteString, "--container", TestCloudKitServer.container,
            "--api-token", fixture.user.apiToken, "--web-auth-token", fixture.user.webAuthToken,
        ]
    }

    private func run(_ words: [String]) async throws -> [String] {
        let lines = Mutex<[String]>([])
        try await ClientCommands.run("docs", arguments: words, environment: [:], output: ClientOutput { line in lines.withLock { $0.append(line) } })
        return lines.withLock { $0 }
    }
}
