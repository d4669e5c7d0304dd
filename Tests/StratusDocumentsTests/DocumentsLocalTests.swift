import Foundation
import StratusDocuments
import StratusTesting
import Synchronization
import Testing

/// The watcher, coordinated writes and paths, without a server.
/// Serialized: each test runs a server and devices; one at a time leaves the 2 cores to other suites' servers.
@Suite(.serialized) struct DocumentsLocalTests {
    @Test func watcherReportsNestedChangesAndPairsRenames() async throws {
        let directory = try TemporaryDirectory(prefix: "docs-watch")
        defer { directory.remove() }
        let events = Mutex<[DirectoryWatcher.Event]>([])
        let watcher = try DirectoryWatcher(directory: directory.url) { batch in events.withLock { $0 += batch } }
        defer { watcher.stop() }
        let nested = directory.url.appendingPathComponent("a/b")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        try await waitFor { events.withLock { $0.contains(.changed("a")) } }
        // The new folders are watched as they appear: writes inside them are reported.
        try await retryUntil({ events.withLock { $0.contains(.changed("a/b/one.txt")) } }) {
            try? FileManager.default.removeItem(at: nested.appendingPathComponent("one.txt"))
            try Data("1".utf8).write(to: nested.appendingPathComponent("one.txt"))
        }
        try FileManager.default.moveItem(at: nested.appendingPathComponent("one.txt"), to: directory.url.appendingPathComponent("two.txt"))
        try await waitFor { events.withLock { $0.contains(.moved(from: "a/b/one.txt", to: "two.txt")) } }
        try FileManager.default.removeItem(at: directory.url.appendingPathComponent("two.txt"))
        try await waitFor { events.withLock { $0.contains(.removed("two.txt")) } }
        // A move out of the tree has no IN_MOVED_TO: after a short wait for a partner it is a removal.
        let outside = try TemporaryDirectory(prefix: "docs-watch-out")
        defer { outside.remove() }
        try Data("3".utf8).write(to: directory.url.appendingPathComponent("three.txt"))
        try FileManager.default.moveItem(at: directory.url.appendingPathComponent("three.txt"), to: outside.url.appendingPathComponent("three.txt"))
        try await waitFor { events.withLock { $0.contains(.removed("three.txt")) } }
        try FileManager.default.createDirectory(at: directory.url.appendingPathComponent(".stratus"), withIntermediateDirectories: true)
        try Data().write(to: directory.url.appendingPathComponent(".stratus/ignored"))
        #expect(!events.withLock { $0.contains { $0 == .changed(".stratus") || $0 == .changed(".stratus/ignored") } })
    }

    @Test func watcherNeverFollowsSymbolicLinksInsideTheFolder() async throws {
        let directory = try TemporaryDirectory(prefix: "docs-watch-links")
        defer { directory.remove() }
        let root = directory.url.appendingPathComponent("root")
        let outside = directory.url.appendingPathComponent("outside")
        for folder in [root, outside] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("loop").path, withDestinationPath: ".")
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("out"), withDestinationURL: outside)
        let events = Mutex<[DirectoryWatcher.Event]>([])
        let watcher = try DirectoryWatcher(directory: root) { batch in events.withLock { $0 += batch } }  // a loop does not recurse forever
        defer { watcher.stop() }
        try Data("x".utf8).write(to: outside.appendingPathComponent("x.txt"))
        try await retryUntil({ events.withLock { $0.contains(.changed("marker.txt")) } }) {
            try Data("m".utf8).write(to: root.appendingPathComponent("marker.txt"))
        }
        #expect(!events.withLock { $0.contains { "\($0)".contains("x.txt") } }, "a folder behind a link is not watched")
    }

    @Test func coordinatedWritesReplaceAtomicallyAndRefuseBadPaths() async throws {
        try await DocumentsFixture.run { fixture in
            let device = try fixture.device("A")
            try device.write("deep/er/file.txt", "one")
            #expect(try device.read("deep/er/file.txt") == "one")
            struct Boom: Error {}
            #expect(throws: Boom.self) {
                try device.documents.coordinateWriting(at: "deep/er/file.txt") { url in
                    try Data("half".utf8).write(to: url)
                    throw Boom()
                }
            }
            #expect(try device.read("deep/er/file.txt") == "one", "a failed write changes nothing")
            let text = try device.documents.coordinateReading(at: "deep/er/file.txt") { try String(contentsOf: $0, encoding: .utf8) }
            #expect(text == "one")
            for bad in ["/etc/passwd", "../x", "a//b", ".stratus/state.sqlite", ""] {
                #expect(throws: DocumentsError.self) { try device.write(bad, "x") }
            }
        }
    }

    @Test func watchingSyncsWithoutExplicitCalls() async throws {
        try await DocumentsFixture.run { fixture in
            let a = try fixture.device("A")
            let b = try fixture.device("B")
            try await a.documents.startWatching()
            try Data("auto".utf8).write(to: a.root.appendingPathComponent("auto.txt"))
            try await waitFor(timeout: .seconds(30)) { (try? await a.documents.documents().map(\.path)) == ["auto.txt"] }
            // NB: listed on A is not yet uploaded (the watcher's upload may still be running): B syncs until it arrives.
            try await waitFor(timeout: .seconds(30)) {
                _ = try? await b.sync()
                return (try? b.read("auto.txt")) == "auto"
            }
            await a.documents.stopWatching()
            #expect(try b.read("auto.txt") == "auto")
        }
    }

    @Test func aPushFromAnotherDeviceTriggersASync() async throws {
        try await DocumentsFixture.run { fixture in
            let a = try fixture.device("A")
            let b = try fixture.device("B", pushes: true)
            try await b.documents.startWatching()  // no rescan interval: only inotify or a push can start a sync
            // A push sent before B's courier token is registered is not delivered: save again until one arrives.
            var arrived = false
            for attempt in 1...30 where !arrived {
                try a.write("pushed-\(attempt).txt", "via the courier")
                try await a.sync()
                for _ in 0..<50 where !arrived {
                    arrived = (try? b.files().isEmpty) == false
                    if !arrived { try await Task.sleep(for: .milliseconds(20)) }
                }
            }
            #expect(arrived, "a push made B sync")
            await b.documents.stopWatching()
        }
    }
}

/// Polls `condition` every 20 ms until it holds, failing (at the caller's line) after `timeout`.
func waitFor(
    timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("condition not met within \(timeout)", sourceLocation: sourceLocation)
    throw CancellationError()
}

/// Repeats `action` until `condition` holds (an inotify watch on a new folder is added just after it appears).
func retryUntil(
    timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool,
    _ action: () throws -> Void
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        try action()
        for _ in 0..<10 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
    Issue.record("condition not met within \(timeout)", sourceLocation: sourceLocation)
    throw CancellationError()
}
