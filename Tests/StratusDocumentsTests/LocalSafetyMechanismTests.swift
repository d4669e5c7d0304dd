import Foundation
import StratusSQLite
import StratusTesting
import StratusWire
import Testing

@testable import StratusDocuments

/// The mechanisms under issue 22's fixes, without a server: writes that never replace an unsynced file,
/// the folder lock, the state keyed by NFC, change detection of spellings, pending rows and unreadable
/// files, and a digest that agrees with the bytes it read.
@Suite struct LocalSafetyMechanismTests {
    private func tree() throws -> (TemporaryDirectory, DocumentTree) {
        let directory = try TemporaryDirectory(prefix: "docs-safety")
        let root = directory.url.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        return (directory, DocumentTree(root: root))
    }

    private func file(_ text: String, in directory: TemporaryDirectory) throws -> URL {
        let url = directory.url.appendingPathComponent("tmp-" + UUID().uuidString)
        try Data(text.utf8).write(to: url)
        return url
    }

    private func read(_ path: String, in tree: DocumentTree) -> String? {
        FileManager.default.contents(atPath: tree.root.appendingPathComponent(path).path).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func writesReplaceOnlyTheFileTheyWereToldOf() throws {
        let (directory, tree) = try tree()
        defer { directory.remove() }
        try tree.install(try file("mine", in: directory), at: "doc.txt", replacing: .nothing)
        let synced = try #require(tree.entry("doc.txt"))
        #expect(throws: DocumentsError.self) { try tree.install(try file("remote", in: directory), at: "doc.txt", replacing: .nothing) }
        var other = synced
        other.mtimeNs += 1
        #expect {
            try tree.install(try file("remote", in: directory), at: "doc.txt", replacing: .file(other))
        } throws: { ($0 as? DocumentsError)?.code == .occupied }
        #expect(read("doc.txt", in: tree) == "mine", "a file other than the expected one is never replaced")
        try tree.install(try file("remote", in: directory), at: "doc.txt", replacing: .file(synced))
        #expect(read("doc.txt", in: tree) == "remote")
        try tree.install(try file("app", in: directory), at: "doc.txt", replacing: .anyFile)
        #expect(read("doc.txt", in: tree) == "app")
    }

    @Test func aMoveNeverLandsOnAnUnsyncedFile() throws {
        let (directory, tree) = try tree()
        defer { directory.remove() }
        try tree.install(try file("x", in: directory), at: "x.txt")
        try tree.install(try file("saved meanwhile", in: directory), at: "target.txt")
        #expect {
            try tree.move("x.txt", to: "target.txt")
        } throws: { ($0 as? DocumentsError)?.code == .occupied }
        #expect(read("x.txt", in: tree) == "x" && read("target.txt", in: tree) == "saved meanwhile")
        try tree.move("x.txt", to: "sub/free.txt")
        #expect(read("sub/free.txt", in: tree) == "x" && tree.entry("x.txt") == nil)
        #expect(tree.kind("sub") == .folder)
        #expect(tree.blockedAncestor(of: "target.txt/inner.txt")?.path == "target.txt")
        #expect(!tree.removeEmptyFolder("sub"), "a folder with a file in it stays")
    }

    @Test func oneContainerOwnsAFolderAtATime() throws {
        let directory = try TemporaryDirectory(prefix: "docs-lock")
        defer { directory.remove() }
        let first = try FolderLock(in: directory.url, folder: directory.url)
        #expect(FolderLock.holder(in: directory.url) == getpid())
        #expect {
            _ = try FolderLock(in: directory.url, folder: directory.url)
        } throws: { error in
            (error as? DocumentsError)?.code == .folderInUse && "\(error)".contains("pid \(getpid())")
        }
        first.release()
        #expect(FolderLock.holder(in: directory.url) == nil)
        _ = try FolderLock(in: directory.url, folder: directory.url)
    }

    @Test func theStateHoldsOneDocumentPerNameUnderNFC() throws {
        let directory = try TemporaryDirectory(prefix: "docs-state")
        defer { directory.remove() }
        let path = directory.path("state.sqlite")
        // A database of an earlier release: two rows for two spellings of one name, and a token.
        let old = try SQLiteDatabaseQueue(configuration: SQLiteConfiguration(path: path))
        try old.writeSync { db in
            try db.execute(
                """
                CREATE TABLE documents (record_name TEXT PRIMARY KEY, path TEXT NOT NULL UNIQUE, body BLOB NOT NULL,
                downloaded INTEGER NOT NULL, inode INTEGER, mtime_ns INTEGER)
                """)
            try db.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
            try db.execute("INSERT INTO meta (name, value) VALUES ('token', 't')")
            for (name, spelling) in [("a", "caf\u{E9}.txt"), ("b", "cafe\u{301}.txt")] {
                let body = try StoredDocument.encode(Self.record(name, spelling))
                try db.execute("INSERT INTO documents (record_name, path, body, downloaded) VALUES (?, ?, ?, 1)", [name, spelling, body])
            }
        }
        try old.close()
        let state = try LocalDocumentState(path: path)
        #expect(try state.documents().map(\.record.recordName) == ["a"], "the second spelling is forgotten")
        #expect(try state.meta("token") == nil, "and everything is fetched again")
        #expect(try state.document(atPath: "cafe\u{301}.txt")?.record.recordName == "a", "either spelling finds the document")
        try state.save(LocalDocument(record: Self.record("c", "cafe\u{301}.txt"), downloaded: true, inode: 1, mtimeNs: 1))
        #expect(try state.documents().map(\.record.recordName) == ["c"], "never two rows for one name")
        state.close()
        let reader = try LocalDocumentState(path: path, readOnly: true)
        #expect(try reader.documents().count == 1)
        #expect {
            try reader.setMeta("token", "x")
        } throws: { ($0 as? DocumentsError)?.code == .readOnly }
    }

    @Test func detectionSeesRespellingsPendingRowsAndUnreadableFiles() throws {
        let synced = LocalDocument(record: Self.record("r1", "caf\u{E9}.txt", tag: "t"), downloaded: true, inode: 1, mtimeNs: 10)
        let pending = LocalDocument(record: Self.record("r2", "new.txt"), downloaded: true, inode: 2, mtimeNs: 20)
        let locked = LocalDocument(record: Self.record("r3", "locked.txt", tag: "t"), downloaded: true, inode: 3, mtimeNs: 30)
        let disk = [
            DiskEntry(path: "cafe\u{301}.txt", size: 3, inode: 1, mtimeNs: 10), DiskEntry(path: "new.txt", size: 3, inode: 2, mtimeNs: 20),
            DiskEntry(path: "locked.txt", size: 4, inode: 3, mtimeNs: 31), DiskEntry(path: "unreadable.txt", size: 1, inode: 4, mtimeNs: 40),
        ]
        let changes = try LocalChangeDetector.changes(disk: disk, known: [synced, pending, locked], moves: [:]) { entry in
            entry.path == "locked.txt" || entry.path == "unreadable.txt" ? nil : FileDigest(contentHash: "h", chunkHashes: ["h"])
        }
        #expect(changes.count == 2)
        #expect(changes.contains(.renamed(synced, disk[0], nil)), "a new spelling of the name is a rename")
        #expect(changes.contains(.modified(pending, disk[1], FileDigest(contentHash: "h", chunkHashes: ["h"]))), "a pending row uploads again")
    }

    @Test func aDigestCoversExactlyTheBytesItsSizeSays() throws {
        let directory = try TemporaryDirectory(prefix: "docs-digest")
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("log.txt")
        try Data(repeating: 7, count: 150).write(to: url)
        let digest = try ChunkedFile.digest(of: try FileHandle(forReadingFrom: url), name: "log.txt", chunkSize: 64)
        #expect(digest.observed?.size == 150)
        #expect(digest.chunkHashes.count == 3)
        let chunk = try ChunkedFile.chunk(2, of: try FileHandle(forReadingFrom: url), name: "log.txt", chunkSize: 64, length: 22)
        #expect(chunk.count == 22)
    }

    private static func record(_ name: String, _ path: String, tag: String? = nil) -> DocumentRecord {
        DocumentRecord(
            recordName: name, path: path, size: 3, contentHash: "h", modified: Date(timeIntervalSince1970: 0), device: "d",
            chunkSize: 1 << 20, chunkHashes: ["h"], changeTag: tag.map { ChangeTag(rawValue: $0) })
    }
}
