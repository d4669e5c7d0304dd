import Dispatch
import Foundation
import StratusClient
import StratusDocuments
import StratusTesting
import StratusWire
import Testing

/// Uploads that are interrupted, raced or read while written (issue 22, #1, #2, #10): never a duplicate,
/// never an error that repeats at every sync, never a record whose size and chunks disagree.
/// Serialized: each test runs a server and devices; one at a time leaves the 2 cores to other suites' servers.
@Suite(.serialized) struct UploadRetryTests {
    /// #1: the server saved the batch but the device never heard (killed, or the server was): the next
    /// process uploads the same files under the same record names, so no `(A)` twin appears anywhere.
    @Test func anInterruptedBatchIsRetriedUnderTheSameRecordNames() async throws {
        try await DocumentsFixture.run { fixture in
            var a = try fixture.device("A", chunkSize: 64 << 10)
            for index in 1...3 { try a.write("s\(index).txt", "small \(index)") }
            try a.write("big.bin", try randomBytes(1 << 20))
            a.transport.loseResponses(of: "records/modify")
            await #expect(throws: (any Error).self) { try await a.sync() }
            await a.documents.close()
            a = try fixture.device("A", chunkSize: 64 << 10)  // a new process on the same folder
            try await a.sync()
            let b = try fixture.device("B", chunkSize: 64 << 10)
            try await b.sync()
            let expected = ["big.bin", "s1.txt", "s2.txt", "s3.txt"]
            #expect(try a.files() == expected)
            #expect(try b.files() == expected)
            #expect(try await fixture.serverRecordNames().count == 4, "one record per file, none twice")
            #expect(try await a.sync().isEmpty)
        }
    }

    /// #2: two devices edit different chunks of a multi-chunk file; the second save is a conflict (its tag is
    /// stale), not `asset without a receipt` at every sync: the first edit stays current, the other is a version.
    @Test func concurrentEditsOfAMultiChunkFileEndInAConflictVersion() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair(chunkSize: 64 << 10)
            let base = try randomBytes(200 << 10)  // four chunks
            try await seed("video.bin", base, from: a, to: b)
            var rewritten = base
            rewritten.replaceSubrange(0..<1_000, with: try randomBytes(1_000))  // A rewrites chunk 0
            try a.write("video.bin", rewritten)
            let appended = base + (try randomBytes(10 << 10))  // B appends (its last chunk changes)
            try b.write("video.bin", appended)
            try await a.sync()
            let conflicted = try await b.sync()
            try await b.sync()
            try await a.sync()
            #expect(conflicted.activities.contains(.conflict(path: "video.bin", device: "B")))
            for device in [a, b] {
                #expect(try device.data("video.bin") == rewritten, "the first save stays current")
                let versions = try await device.documents.unresolvedConflictVersions(of: "video.bin")
                #expect(versions.count == 1 && versions.first?.device == "B")
                if let version = versions.first {
                    #expect(try Data(contentsOf: try await device.documents.contents(of: version)) == appended)
                }
                #expect(try await device.documents.allUnresolvedConflicts().keys.sorted() == ["video.bin"])
            }
        }
    }

    /// #10: a file that grows between the scan's listing and its hashing uploads a record whose size, chunk
    /// hashes and chunk assets describe the same bytes, and the other device takes it without `contentMismatch`.
    @Test func aFileAppendedDuringTheScanUploadsARecordThatAgreesWithItself() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair(chunkSize: 64 << 10)
            let log = a.root.appendingPathComponent("log.txt")
            try await seed("log.txt", try randomBytes(100 << 10), from: a, to: b)
            for _ in 0..<3 {
                try append(try randomBytes(1_000), to: log)  // a change the scan will see
                let gate = WriteGate(a.documents.coordinator, path: "log.txt")
                await gate.held()
                let sync = Task { try await a.sync() }
                // The scan lists the folder, then waits for the lock to hash the log; meanwhile the log grows.
                try await Task.sleep(for: .milliseconds(400))
                try append(try randomBytes(70 << 10), to: log)
                gate.open()
                _ = try await sync.value
                let record = try await serverRecord(atPath: "log.txt", of: a, in: fixture)
                let size: Int64 = try #require(record["size"])
                let hashes: [String] = record["chunkHashes"] ?? []
                guard case .assetList(let chunks)? = record.fields["chunks"] else {
                    Issue.record("the log's record has no chunks")
                    return
                }
                #expect(chunks.compactMap(\.size).reduce(0, +) == size, "the chunks hold exactly `size` bytes")
                #expect(hashes.count == chunks.count)
                try await b.sync()
                let copy = try #require(try b.data("log.txt"))
                #expect(Int64(copy.count) == size)
                #expect(try Data(contentsOf: log).prefix(copy.count) == copy, "what B has is what A's file held")
            }
            try await a.sync()
            try await b.sync()
            #expect(try b.data("log.txt") == (try Data(contentsOf: log)))
        }
    }

    private func append(_ data: Data, to url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: data)
    }

    private func serverRecord(atPath path: String, of device: Device, in fixture: DocumentsFixture) async throws -> StratusClient.Record {
        let id = try #require(try await device.documents.documents().first { $0.path == path }?.id)
        return try await fixture.container().privateCloudDatabase.record(
            for: RecordID(recordName: id, zoneID: ZoneID(zoneName: "StratusDocuments")))
    }
}

/// Holds a document's write lock on a thread of its own until ``open()``, so the engine's reads of it wait.
final class WriteGate: Sendable {
    private let entered = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)

    init(_ coordinator: FileCoordinator, path: String) {
        let entered = self.entered
        let release = self.release
        Thread.detachNewThread {
            coordinator.write(path) {
                entered.signal()
                release.wait()
            }
        }
    }

    /// Waits until the lock is held.
    func held() async {
        let entered = self.entered
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                entered.wait()
                continuation.resume()
            }
        }
    }

    /// Releases the lock.
    func open() { release.signal() }
}
