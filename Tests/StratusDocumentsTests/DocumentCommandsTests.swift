import Foundation
import StratusClientCommands
import StratusDocuments
import StratusTesting
import Synchronization
import Testing

/// `stratus docs sync|conflicts` against a real server, output captured.
@Suite struct DocumentCommandsTests {
    @Test func docsSyncPrintsWhatMovesAndConflictsListsVersions() async throws {
        try await DocumentsFixture.run { fixture in
            let a = try fixture.device("A")
            try a.write("notes.txt", "hello")
            try await a.sync()
            let folder = fixture.directory.url.appendingPathComponent("cli").path
            let flags = [
                "--server", fixture.server.http.url("").absoluteString, "--container", TestCloudKitServer.container,
                "--api-token", fixture.user.apiToken, "--web-auth-token", fixture.user.webAuthToken, "--device", "cli",
            ]
            let first = try await run(["sync", folder, "--once"] + flags)
            #expect(first.contains("↓ notes.txt (5 bytes)"))
            #expect(try String(contentsOfFile: folder + "/notes.txt", encoding: .utf8) == "hello")

            try a.write("notes.txt", "from A")
            try Data("from cli".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))
            try await a.sync()
            let second = try await run(["sync", folder, "--once"] + flags)
            #expect(second.contains("! notes.txt: conflict version from cli"))
            let listed = try await run(["conflicts", folder] + flags)
            #expect(listed.count == 2)
            #expect(listed.first?.hasPrefix("notes.txt\tcurrent: ") == true && listed.first?.contains("from A") == true)
            #expect(listed.last?.hasPrefix("notes.txt\tconflict: ") == true && listed.last?.contains("from cli") == true)

            let lazy = fixture.directory.url.appendingPathComponent("lazy").path
            let listed2 = try await run(["sync", lazy, "--once", "--on-demand"] + flags)
            #expect(listed2.contains { $0.hasPrefix("○ notes.txt") })
            #expect(!FileManager.default.fileExists(atPath: lazy + "/notes.txt"))
            let progress = try await run(["download", lazy, "notes.txt", "--on-demand"] + flags)
            #expect(progress.last == "notes.txt 100%")
            #expect(try String(contentsOfFile: lazy + "/notes.txt", encoding: .utf8) == "from A")

            let help = try await run(["--help"])
            #expect(help.contains { $0.contains("stratus docs sync <dir>") })
            await #expect(throws: ClientCommandError.self) { try await run(["frobnicate", folder] + flags) }
        }
    }

    private func run(_ words: [String]) async throws -> [String] {
        let lines = Mutex<[String]>([])
        try await ClientCommands.run("docs", arguments: words, environment: [:], output: ClientOutput { line in lines.withLock { $0.append(line) } })
        return lines.withLock { $0 }
    }
}
