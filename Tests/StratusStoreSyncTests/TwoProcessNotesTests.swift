import Foundation
import StratusTesting
import Testing

/// Two devices as two real processes (`stratus demo device`, each launch a process of its own with
/// its own store directory) against one server: issue 23's first defect as an app meets it.
@Suite struct TwoProcessNotesTests {
    /// One launch of a device; fails the test unless it exits 0.
    private static func launch(
        _ device: String, _ words: [String], server: TestCloudKitServer, directory: TemporaryDirectory, network: String = "on",
        push: String = "off"
    ) async throws -> [String] {
        let stratus = try SpawnedCommand.builtExecutable("stratus")
        let arguments =
            [
                "demo", "device", "--server", server.http.url("").absoluteString, "--container", TestCloudKitServer.container,
                "--store", directory.path(device), "--device", device, "--network", network, "--push", push,
                // The child's request deadline is a hang guard: as long as this build's (a sanitizer's) slowdown needs.
                "--request-timeout", String(TestTimeScale.scaled(seconds: 10)),
            ] + words
        let result = try await SpawnedCommand.run(stratus, arguments, environment: ProcessInfo.processInfo.environment)
        #expect(result.status == 0, "\(device) \(words): exited \(result.status)\n\(result.output)\n\(result.errorOutput)")
        return result.output.split(separator: "\n").map(String.init)
    }

    /// A edits a note's body while offline; B edits it later, online; A launches, starts (with push,
    /// as an app does), syncs and stops at once. A's next launch holds B's body — the conflict's
    /// result reached A's store before the process ended (it was lost with the process, and A stayed
    /// wrong forever) — and A's forced sync then leaves B's edit on the server and on B.
    @Test func aConflictResolvedJustBeforeQuittingIsKeptAndAForcedSyncOverwritesNothing() async throws {
        try await TestCloudKitServer.withServer(directoryPrefix: "stratus-two-process") { server, directory in
            let note = "Groceries"
            _ = try await Self.launch("A", ["create", note, "first draft"], server: server, directory: directory)
            #expect(try await Self.launch("B", ["sync"], server: server, directory: directory).contains("\(note)|first draft|"))

            _ = try await Self.launch("A", ["edit", note, "written offline on A"], server: server, directory: directory, network: "off")
            // B's edit is an hour later than anything A does in this test, however slow the machine
            // (a forced sync dates what it re-sends by the device's clock; under ThreadSanitizer this test
            // has taken more than the 120 s it once allowed).
            server.advanceClock(by: .seconds(3600))
            _ = try await Self.launch("B", ["edit", note, "written later on B"], server: server, directory: directory)

            let synced = try await Self.launch("A", ["sync"], server: server, directory: directory, push: "on")
            #expect(synced.contains("\(note)|written later on B|"), "\(synced)")
            let relaunched = try await Self.launch("A", ["show"], server: server, directory: directory)
            #expect(relaunched == ["\(note)|written later on B|"])

            _ = try await Self.launch("A", ["forced-sync"], server: server, directory: directory)
            #expect(try await Self.launch("B", ["sync"], server: server, directory: directory).contains("\(note)|written later on B|"))
            #expect(try await Self.launch("A", ["show"], server: server, directory: directory) == ["\(note)|written later on B|"])
        }
    }
}
