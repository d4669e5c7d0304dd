import Foundation
import StratusDocuments
import StratusTesting
import Synchronization
import Testing

/// Two devices, one server on loopback: every kind of local change reaches the other device.
/// Serialized: each test runs a server and devices; one at a time leaves the 2 cores to other suites' servers.
@Suite(.serialized) struct DocumentsSyncTests {
    @Test func createEditRenameMoveAndDeleteReachTheOtherDevice() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair()

            try a.write("notes.txt", "first")
            try a.write("Projects/plan/todo.md", "- ship")
            try await seed("empty.bin", Data(), from: a, to: b)
            #expect(try b.files() == ["Projects/plan/todo.md", "empty.bin", "notes.txt"])
            #expect(try b.read("notes.txt") == "first")
            #expect(try b.read("Projects/plan/todo.md") == "- ship")

            try b.write("notes.txt", "second")
            try await b.sync()
            try await a.sync()
            #expect(try a.read("notes.txt") == "second")

            try FileManager.default.moveItem(at: a.root.appendingPathComponent("notes.txt"), to: a.root.appendingPathComponent("renamed.txt"))
            try FileManager.default.createDirectory(at: a.root.appendingPathComponent("Archive"), withIntermediateDirectories: true)
            try FileManager.default.moveItem(
                at: a.root.appendingPathComponent("Projects/plan/todo.md"), to: a.root.appendingPathComponent("Archive/todo.md"))
            let report = try await a.sync()
            #expect(report.bytesUploaded == 0, "a rename sends no content")
            #expect(report.activities.contains(.renamed(from: "notes.txt", to: "renamed.txt")))
            let before = b.transport.downloadedBytes
            try await b.sync()
            #expect(b.transport.downloadedBytes == before, "a rename downloads nothing")
            #expect(try b.files() == ["Archive/todo.md", "empty.bin", "renamed.txt"])
            #expect(try b.read("renamed.txt") == "second")
            #expect(!FileManager.default.fileExists(atPath: b.root.appendingPathComponent("Projects").path), "emptied folders go")

            try b.write("renamed.txt", Data())
            try await b.sync()
            try await a.sync()
            #expect(try a.data("renamed.txt") == Data(), "a document can become empty")

            try FileManager.default.removeItem(at: b.root.appendingPathComponent("Archive/todo.md"))
            try await b.sync()
            try await a.sync()
            #expect(try a.files() == ["empty.bin", "renamed.txt"])
            #expect(try await a.documents.documents().map(\.path) == ["empty.bin", "renamed.txt"])
        }
    }

    @Test func twentyMegabyteFileSyncsByteExact() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair(chunkSize: 8 << 20)
            let big = try randomBytes(20 << 20)
            try a.write("video.bin", big)
            let up = try await a.sync()
            #expect(up.chunksUploaded == 3)
            try await b.sync()
            #expect(try b.data("video.bin") == big)
        }
    }

    @Test func oneByteEditSendsOneChunkAndRescansSendNothing() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair(chunkSize: 256 << 10)
            var big = try randomBytes(2 << 20)  // 8 chunks
            try a.write("big.bin", big)
            try await seed("small.txt", "unchanged", from: a, to: b)

            a.transport.resetCounts()
            b.transport.resetCounts()
            let rescanA = try await a.sync()
            let rescanB = try await b.sync()
            #expect(rescanA.isEmpty && rescanB.isEmpty)
            #expect(a.transport.uploadedBytes == 0 && b.transport.downloadedBytes == 0, "unchanged files transfer nothing")

            big[1_000_000] ^= 0xFF
            try a.write("big.bin", big)
            let edit = try await a.sync()
            #expect(edit.chunksUploaded == 1)
            #expect(a.transport.uploads == 1 && a.transport.uploadedBytes == 256 << 10, "one new chunk, nothing else")
            let fetch = try await b.sync()
            #expect(fetch.chunksDownloaded == 1)
            #expect(b.transport.downloads == 1 && b.transport.downloadedBytes == 256 << 10)
            #expect(try b.data("big.bin") == big)
        }
    }

    @Test func aFailedDownloadLeavesTheOldFileIntact() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair(chunkSize: 64 << 10)
            let old = try randomBytes(256 << 10)
            try await seed("doc.bin", old, from: a, to: b)

            let new = try randomBytes(256 << 10)  // every chunk differs
            try a.write("doc.bin", new)
            try await a.sync()
            b.transport.failDownloads(after: 2)  // dies mid-download, after two of four chunks
            await #expect(throws: (any Error).self) { try await b.sync() }
            #expect(try b.data("doc.bin") == old, "the old file is intact")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: b.root.appendingPathComponent(".stratus/tmp").path)
            #expect(leftovers.isEmpty, "no partial file is left behind")

            b.transport.failDownloads(after: nil)
            try await b.sync()
            #expect(try b.data("doc.bin") == new, "the next sync completes it")

            // A process killed mid-download leaves its temporary file; the next open deletes it.
            let orphan = b.root.appendingPathComponent(".stratus/tmp/download-orphan")
            try Data("partial".utf8).write(to: orphan)
            await b.documents.close()
            let reopened = try fixture.device("B", chunkSize: 64 << 10)
            #expect(!FileManager.default.fileExists(atPath: orphan.path))
            #expect(try await reopened.sync().isEmpty)
            #expect(try reopened.data("doc.bin") == new)
        }
    }

    @Test func placeholdersDownloadOnDemandWithProgress() async throws {
        try await DocumentsFixture.run { fixture in
            let a = try fixture.device("A", chunkSize: 64 << 10)
            let b = try fixture.device("B", chunkSize: 64 << 10, eager: false)
            let content = try randomBytes(300 << 10)
            try a.write("Photos/cat.raw", content)
            try await a.sync()
            let report = try await b.sync()
            #expect(report.activities.contains(.placeholder(path: "Photos/cat.raw", size: 300 << 10)))
            #expect(try b.files().isEmpty)
            #expect(try await b.documents.documents().map(\.isDownloaded) == [false])

            let steps = ProgressLog()
            try await b.documents.download("Photos/cat.raw") { steps.append($0.fractionCompleted) }
            #expect(try b.data("Photos/cat.raw") == content)
            #expect(steps.values.count == 5 && steps.values.last == 1.0)
            #expect(try await b.documents.documents().map(\.isDownloaded) == [true])
            await #expect(throws: DocumentsError.self) { try await b.documents.download("nope.txt") }
        }
    }
}

final class ProgressLog: Sendable {
    private let log = Mutex<[Double]>([])
    func append(_ value: Double) { log.withLock { $0.append(value) } }
    var values: [Double] { log.withLock { $0 } }
}

/// More documents than one request carries.
/// Serialized: each test runs a server and devices; one at a time leaves the 2 cores to other suites' servers.
@Suite(.serialized) struct DocumentsBatchTests {
    @Test func moreThanTwoHundredFilesSyncInSeveralBatches() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair()
            for index in 0..<205 { try a.write("many/\(index % 5)/file-\(index).txt", "content \(index)") }
            let up = try await a.sync()
            #expect(up.chunksUploaded == 205)
            try await b.sync()
            #expect(try b.files().count == 205)
            #expect(try b.read("many/4/file-204.txt") == "content 204")
            let rescanA = try await a.sync()
            let rescanB = try await b.sync()
            #expect(rescanA.isEmpty && rescanB.isEmpty)
        }
    }
}
