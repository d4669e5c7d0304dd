import Foundation
import StratusDocuments
import StratusTesting
import Testing

/// One entry the scan cannot read does not block the others (issue 22, #9): it is skipped and reported,
/// its document is not taken for deleted, and everything else uploads. Run through `stratus docs sync`
/// as an unprivileged user (`setpriv` to `nobody` when the tests run as root, who can read anything).
/// Serialized: each test runs a server and devices; one at a time leaves the 2 cores to other suites' servers.
@Suite(.serialized) struct UnreadableEntryTests {
    @Test func anUnreadableFileOrFolderIsSkippedAndReportedWhileTheRestUploads() async throws {
        try await DocumentsFixture.run { fixture in
            guard chmod(fixture.directory.path, 0o755) == 0 else { throw CocoaError(.fileWriteNoPermission) }
            let folder = fixture.directory.url.appendingPathComponent("cli")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("locked"), withIntermediateDirectories: true)
            for (path, text) in ["secret.txt": "secret", "locked/inner.txt": "inner", "plain.txt": "plain"] {
                try Data(text.utf8).write(to: folder.appendingPathComponent(path))
            }
            try await giveToUnprivilegedUser(folder)
            let first = try await syncAsUnprivilegedUser(folder, fixture)
            #expect(first.status == 0, "\(first.errorOutput)")

            // An edited file and a new one that cannot be read (an unchanged one is not read at all), a folder that cannot be listed.
            try Data("secret, edited".utf8).write(to: folder.appendingPathComponent("secret.txt"))
            try Data("unreadable".utf8).write(to: folder.appendingPathComponent("new-secret.txt"))
            try Data("new".utf8).write(to: folder.appendingPathComponent("new.txt"))
            try await giveToUnprivilegedUser(folder)
            for path in ["secret.txt", "new-secret.txt", "locked"] { chmod(folder.appendingPathComponent(path).path, 0) }
            let second = try await syncAsUnprivilegedUser(folder, fixture)
            defer { chmod(folder.appendingPathComponent("locked").path, 0o755) }
            #expect(second.status == 0, "one unreadable entry does not fail the sync: \(second.errorOutput)")
            let lines = second.output.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.contains(" secret.txt") && $0.contains("cannot read") })
            #expect(lines.contains { $0.contains("new-secret.txt") && $0.contains("cannot read") })
            #expect(lines.contains { $0.contains("locked") && $0.contains("cannot read") })
            #expect(lines.contains { $0.hasPrefix("↑ new.txt") })

            let b = try fixture.device("B")
            try await b.sync()
            #expect(try b.files() == ["locked/inner.txt", "new.txt", "plain.txt", "secret.txt"], "nothing unreadable was taken for deleted")
            #expect(try b.read("secret.txt") == "secret", "the edit that could not be read waits")
        }
    }

    private var unprivileged: Bool { getuid() != 0 }

    private func giveToUnprivilegedUser(_ url: URL) async throws {
        guard !unprivileged else { return }
        let result = try await SpawnedCommand.run("/bin/chown", ["-R", "65534:65534", url.path])
        guard result.status == 0 else { throw CocoaError(.fileWriteNoPermission) }
    }

    private func syncAsUnprivilegedUser(_ folder: URL, _ fixture: DocumentsFixture) async throws -> SpawnedCommand.Result {
        let stratus = try StratusChildProcess.executable().path
        let arguments = [
            "docs", "sync", folder.path, "--once", "--device", "cli", "--server", fixture.server.http.url("").absoluteString,
            "--container", TestCloudKitServer.container, "--api-token", fixture.user.apiToken, "--web-auth-token", fixture.user.webAuthToken,
        ]
        if unprivileged { return try await SpawnedCommand.run(stratus, arguments) }
        return try await SpawnedCommand.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "--", stratus] + arguments)
    }
}
