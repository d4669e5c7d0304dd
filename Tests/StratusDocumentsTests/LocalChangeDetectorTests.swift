import Foundation
import Testing

@testable import StratusDocuments
import StratusWire

/// The pure change detection: which files are hashed, and how vanished rows and new files pair up.
@Suite struct LocalChangeDetectorTests {
    private func row(_ path: String, hash: String, size: Int64 = 3, inode: UInt64, mtime: Int64 = 100) -> LocalDocument {
        LocalDocument(
            record: DocumentRecord(
                recordName: "r-" + path, path: path, size: size, contentHash: hash, modified: Date(), device: "d", chunkSize: 1 << 20,
                chunkHashes: [hash], changeTag: ChangeTag(rawValue: "t")),
            downloaded: true, inode: inode, mtimeNs: mtime)
    }

    private func entry(_ path: String, size: Int64 = 3, inode: UInt64, mtime: Int64 = 100) -> DiskEntry {
        DiskEntry(path: path, size: size, inode: inode, mtimeNs: mtime)
    }

    /// Runs the detector with a digest table, recording which paths were hashed.
    private func detect(
        disk: [DiskEntry], known: [LocalDocument], moves: [String: String] = [:], hashes: [String: String]
    ) throws
        -> (changes: [LocalChangeDetector.Change], hashed: [String])
    {
        var hashed: [String] = []
        let changes = try LocalChangeDetector.changes(disk: disk, known: known, moves: moves) { entry in
            hashed.append(entry.path)
            let hash = hashes[entry.path] ?? "?"
            return FileDigest(contentHash: hash, chunkHashes: [hash])
        }
        return (changes, hashed)
    }

    @Test func unchangedMetadataIsNeverHashed() throws {
        let result = try detect(disk: [entry("a", inode: 1)], known: [row("a", hash: "h", inode: 1)], hashes: [:])
        #expect(result.changes.isEmpty && result.hashed.isEmpty)
    }

    @Test func touchedFileWithTheSameHashIsNotAnEdit() throws {
        let known = row("a", hash: "h", inode: 1)
        let result = try detect(disk: [entry("a", inode: 1, mtime: 200)], known: [known], hashes: ["a": "h"])
        #expect(result.changes == [.touched(known, entry("a", inode: 1, mtime: 200))])
    }

    @Test func newContentIsAnEditAndNewPathsAreCreations() throws {
        let known = row("a", hash: "h", inode: 1)
        let result = try detect(disk: [entry("a", inode: 1, mtime: 200), entry("b", inode: 2)], known: [known], hashes: ["a": "h2", "b": "x"])
        #expect(result.changes.count == 2)
        #expect(result.changes.contains(.modified(known, entry("a", inode: 1, mtime: 200), FileDigest(contentHash: "h2", chunkHashes: ["h2"]))))
        #expect(result.changes.contains(.created(entry("b", inode: 2), FileDigest(contentHash: "x", chunkHashes: ["x"]))))
    }

    @Test func renamesPairByInodeWithoutHashing() throws {
        let known = row("old/a", hash: "h", inode: 7)
        let result = try detect(disk: [entry("new/a", inode: 7)], known: [known], hashes: [:])
        #expect(result.changes == [.renamed(known, entry("new/a", inode: 7), nil)])
        #expect(result.hashed.isEmpty)
    }

    @Test func renamesPairByContentHashWhenTheInodeChanged() throws {
        let known = row("a", hash: "h", inode: 7)
        let result = try detect(disk: [entry("b", inode: 9, mtime: 300)], known: [known], hashes: ["b": "h"])
        #expect(result.changes == [.renamed(known, entry("b", inode: 9, mtime: 300), nil)])
    }

    @Test func inotifyMoveHintsPairARenameWithAnEdit() throws {
        let known = row("a", hash: "h", inode: 7)
        let result = try detect(disk: [entry("b", size: 4, inode: 9, mtime: 300)], known: [known], moves: ["a": "b"], hashes: ["b": "h2"])
        #expect(result.changes == [.renamed(known, entry("b", size: 4, inode: 9, mtime: 300), FileDigest(contentHash: "h2", chunkHashes: ["h2"]))])
    }

    @Test func vanishedFilesAreDeletionsButPlaceholdersAreNot() throws {
        let gone = row("a", hash: "h", inode: 1)
        var placeholder = row("p", hash: "q", inode: 2)
        placeholder.downloaded = false
        let result = try detect(disk: [], known: [gone, placeholder], hashes: [:])
        #expect(result.changes == [.deleted(gone)])
    }
}
