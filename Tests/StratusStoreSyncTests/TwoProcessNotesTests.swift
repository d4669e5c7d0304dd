import Foundation
import StratusTesting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Two devices as two real processes (`stratus demo device`, each launch a process of its own with
/// its own store directory) against one server: issue 23's first defect as an app meets it.
@Suite struct TwoProcessNotesTests {
    /// One launch of a device; fails the test unless it exits 0. Its requests get 60 s, not the
    /// demo's 10: under ThreadSanitizer with many tests at once a request has taken longer, and a
    /// launch whose change did not reach the server fails (rather than passing as uploaded).
    private static func launch(
        _ device: String, _ words: [String], server: TestCloudKitServer, directory: TemporaryDirectory, network: String = "on",
        push: String = "off"
    ) async throws -> [String] {
        let result = try await run(
            device, words, server: server.http.url("").absoluteString, directory: directory,
            options: ["--network", network, "--push", push, "--request-timeout", "60"])
        #expect(result.status == 0, "\(device) \(words): exited \(result.status)\n\(result.output)\n\(result.errorOutput)")
        return result.output.split(separator: "\n").map(String.init)
    }

    /// One launch of a device against `server`, whatever its exit status.
    private static func run(
        _ device: String, _ words: [String], server: String, directory: TemporaryDirectory, options: [String]
    ) async throws -> SpawnedCommand.Result {
        let stratus = try SpawnedCommand.builtExecutable("stratus")
        let arguments =
            [
                "demo", "device", "--server", server, "--container", TestCloudKitServer.container, "--store", directory.path(device),
                "--device", device,
            ] + options + words
        return try await SpawnedCommand.run(stratus, arguments, environment: ProcessInfo.processInfo.environment)
    }

    /// A launch whose upload timed out used to exit 0 as if the edit had reached the server: under
    /// ThreadSanitizer B's edit then seemed to lose to A's older one. Online, a change left in the
    /// outbox fails the launch, naming the timeout; offline it is what the launch is for.
    @Test func aLaunchWhoseUploadTimesOutFailsInsteadOfPassingForAnUpload() async throws {
        let silent = try SilentListener()
        defer { silent.close() }
        let directory = try TemporaryDirectory(prefix: "stratus-two-process")
        defer { directory.remove() }
        let server = "http://127.0.0.1:\(silent.port)/"
        let timedOut = try await Self.run(
            "A", ["create", "Groceries", "milk"], server: server, directory: directory,
            options: ["--push", "off", "--request-timeout", "1"])
        #expect(timedOut.status == 1, "\(timedOut.output)\n\(timedOut.errorOutput)")
        #expect(timedOut.errorOutput.contains("1 change(s) were not confirmed by the server"), "\(timedOut.errorOutput)")
        #expect(timedOut.errorOutput.contains("deadline"), "the reason names the timeout: \(timedOut.errorOutput)")

        let offline = try await Self.run(
            "B", ["create", "Groceries", "milk"], server: server, directory: directory,
            options: ["--push", "off", "--network", "off"])
        #expect(offline.status == 0, "\(offline.output)\n\(offline.errorOutput)")
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

/// A TCP socket on 127.0.0.1 that listens and never accepts: a connection completes in the
/// kernel's backlog, the request goes out, and no answer ever comes (a server too slow to answer
/// before the client's deadline).
private final class SilentListener: Sendable {
    private let descriptor: Int32
    let port: UInt16

    init() throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw ListenFailure(description: "socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(descriptor, raw, length) == 0 && listen(descriptor, 16) == 0 && getsockname(descriptor, raw, &length) == 0
            }
        }
        guard bound else {
            Self.close(descriptor)
            throw ListenFailure(description: "could not listen on 127.0.0.1")
        }
        self.descriptor = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    func close() { Self.close(descriptor) }

    private static func close(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }

    struct ListenFailure: Error, CustomStringConvertible {
        var description: String
    }
}
