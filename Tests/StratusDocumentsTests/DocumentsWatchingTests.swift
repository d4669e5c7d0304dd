import Foundation
import StratusTesting
import Testing

@testable import StratusDocuments

/// Stopping and starting to watch again: nothing of a stopped watch blocks or outlives it.
@Suite(.serialized) struct DocumentsWatchingTests {
    @Test func editsSyncAfterAStopThatInterruptedAWaitingSync() async throws {
        try await DocumentsFixture.run { fixture in
            // No rescan (the fixture's default): only an inotify event can start a sync.
            let a = try fixture.device("A", debounce: .seconds(2))
            try await a.documents.startWatching()
            try Data("first".utf8).write(to: a.root.appendingPathComponent("first.txt"))
            try await waitFor { await a.documents.watch.isSyncPending }
            await a.documents.stopWatching()  // cancels the waiting sync
            try await a.documents.startWatching()
            try Data("second".utf8).write(to: a.root.appendingPathComponent("second.txt"))
            try await waitFor { (try? await a.documents.documents().map(\.path).sorted()) == ["first.txt", "second.txt"] }
            await a.documents.stopWatching()
        }
    }

    @Test func aTaskOfAStoppedWatchNeitherSyncsNorClearsALaterWatchesMark() throws {
        let directory = try TemporaryDirectory(prefix: "docs-folder-watch")
        defer { directory.remove() }
        var watch = FolderWatch()
        let first = try watch.start { _ in try DirectoryWatcher(directory: directory.url) { _ in } }
        watch.notice(debounce: .seconds(3600), of: first) { _ in }
        #expect(watch.isSyncPending)
        watch.stop()
        #expect(!watch.isSyncPending, "stop cancels the waiting sync, so it clears its mark")
        let second = try watch.start { _ in try DirectoryWatcher(directory: directory.url) { _ in } }
        watch.notice(debounce: .seconds(3600), of: second) { _ in }
        let staleRuns = watch.settle(first)
        #expect(!staleRuns, "the stopped watch's sync, already past its cancellation check, does not run")
        #expect(watch.isSyncPending, "nor clears the later watch's mark")
        #expect(!watch.isCurrent(first) && watch.isCurrent(second))
        let currentRuns = watch.settle(second)
        #expect(currentRuns)
        #expect(!watch.isSyncPending)
        watch.stop()
        #expect(!watch.isCurrent(second))
    }

    @Test func anEventReadByAStoppedWatcherSchedulesNoSyncOfTheNextWatch() throws {
        let directory = try TemporaryDirectory(prefix: "docs-folder-watch")
        defer { directory.remove() }
        var watch = FolderWatch()
        var handed: FolderWatch.Generation?
        let first = try watch.start { generation in
            handed = generation
            return try DirectoryWatcher(directory: directory.url) { _ in }
        }
        #expect(handed == first, "the watcher is built for the generation its events carry")
        watch.stop()
        let second = try watch.start { _ in try DirectoryWatcher(directory: directory.url) { _ in } }
        watch.notice(debounce: .seconds(3600), of: first) { _ in }
        #expect(!watch.isSyncPending, "an event of the stopped watch, delivered late, schedules nothing")
        watch.notice(debounce: .seconds(3600), of: second) { _ in }
        #expect(watch.isSyncPending)
        watch.stop()
    }
}
