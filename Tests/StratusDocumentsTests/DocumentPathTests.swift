import Foundation
import StratusClient
import StratusTesting
import StratusWire
import Testing

@testable import StratusDocuments

/// The one validator of document paths, and what a record from the server must satisfy.
@Suite struct DocumentPathTests {
    @Test func validPathsPassUnchanged() throws {
        for good in ["a.txt", "Projects/plan/todo.md", "é/naïve.txt", "back\\slash.txt", "...", "a/.stratus/x", ".stratusx", "a b/c"] {
            #expect(try DocumentPath.validate(good) == good)
        }
        let longest = String(repeating: "n", count: 255)
        #expect(try DocumentPath.validate(longest) == longest)
    }

    @Test func traversalAbsoluteEmptyAndControlCharactersAreRefused() {
        let bad = [
            "", "/etc/passwd", "../x", "a/../../x", "a/..", ".", "./a", "a//b", "a/", "nul\u{0}.txt", "line\nfeed", "esc\u{1B}[31m",
            "del\u{7F}", "c1\u{85}", String(repeating: "n", count: 256), String(repeating: "a/", count: 600) + "x",
        ]
        for path in bad {
            #expect(throws: DocumentsError.self, "\(DocumentPath.printable(path))") { try DocumentPath.validate(path) }
        }
    }

    @Test func theReservedFolderIsRefusedInEverySpellingAFileSystemMightFold() {
        for spelling in [".stratus", ".STRATUS", ".Stratus", ".\u{17F}tratus", ".stra\u{200C}tus", "\u{FEFF}.stratus"] {
            #expect(DocumentPath.isReserved(spelling), "\(spelling.unicodeScalars.map { String($0.value, radix: 16) })")
            #expect(throws: DocumentsError.self) { try DocumentPath.validate(spelling + "/state.sqlite") }
        }
        #expect(!DocumentPath.isReserved(".stratus2") && !DocumentPath.isReserved("stratus"))
    }

    @Test func printableEscapesControlCharactersAndCuts() {
        #expect(DocumentPath.printable("a\u{1B}]0;x\u{7}b") == "a\\u{1b}]0;x\\u{7}b")
        #expect(DocumentPath.printable(String(repeating: "x", count: 300)).count == 201)
    }

    @Test func recordsWithUnsafeOrAbsurdFieldsAreRefused() throws {
        func record(_ edit: (inout StratusClient.Record) -> Void) -> StratusClient.Record {
            var record = StratusClient.Record(recordType: "Document", recordID: RecordID(recordName: "r", zoneID: DocumentRecord.zoneID()))
            record["path"] = "a.txt"
            record["size"] = Int64(0)
            record["contentHash"] = String(repeating: "0", count: 64)
            record["modified"] = Date(timeIntervalSince1970: 0)
            record["chunkSize"] = Int64(1 << 20)
            edit(&record)
            return record
        }
        let limit: Int64 = 64 << 20
        let good = try DocumentRecord(record { $0["device"] = "evil\u{1B}[2J" + String(repeating: "d", count: 100) }, maximumChunkSize: limit)
        #expect(good.device.hasPrefix("evil\\u{1b}[2J") && good.device.count < 80, "printable, at most 64 characters of the original")
        let refused: [(String, (inout StratusClient.Record) -> Void)] = [
            ("dot-dot path", { $0["path"] = "../x" }),
            ("absolute path", { $0["path"] = "/etc/passwd" }),
            ("negative size", { $0["size"] = Int64(-1) }),
            ("overflowing size", { $0["size"] = Int64.max }),
            ("huge chunks", { $0["chunkSize"] = limit + 1 }),
            ("zero chunks", { $0["chunkSize"] = Int64(0) }),
            ("bad hash", { $0["contentHash"] = "../../x" }),
            (
                "lying chunk size",
                {
                    $0["size"] = Int64(10)
                    $0["chunkHashes"] = [String(repeating: "a", count: 64)]
                    $0["chunks"] = FieldValue.assetList([Asset(fileChecksum: "c", size: 11)])
                }
            ),
        ]
        for (name, edit) in refused {
            #expect(throws: DocumentsError.self, "\(name)") { try DocumentRecord(record(edit), maximumChunkSize: limit) }
        }
    }
}

/// File-system actions on document paths never leave the root, whatever links are inside it.
@Suite struct DocumentTreeTests {
    private func sandbox() throws -> (TemporaryDirectory, DocumentTree, URL) {
        let directory = try TemporaryDirectory(prefix: "docs-tree")
        let root = directory.url.appendingPathComponent("root")
        let outside = directory.url.appendingPathComponent("outside")
        for folder in [root, outside] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        try Data("keep".utf8).write(to: outside.appendingPathComponent("keep.txt"))
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("link"), withDestinationURL: outside)
        return (directory, DocumentTree(root: root), outside)
    }

    private func temporary(in directory: TemporaryDirectory, _ text: String = "new") throws -> URL {
        let file = directory.url.appendingPathComponent("tmp-" + UUID().uuidString)
        try Data(text.utf8).write(to: file)
        return file
    }

    @Test func installCreatesFoldersButNeverGoesThroughALink() throws {
        let (directory, tree, outside) = try sandbox()
        try tree.install(try temporary(in: directory), at: "a/b/c.txt")
        #expect(FileManager.default.contents(atPath: tree.root.appendingPathComponent("a/b/c.txt").path) == Data("new".utf8))
        for blocked in ["link/planted.txt", "link/keep.txt", "link/deeper/x.txt", "link", "a/b"] {
            #expect(
                performing: { try tree.install(try temporary(in: directory), at: blocked) },
                throws: { error in
                    (error as? DocumentsError)?.code == .pathBlocked
                })
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == ["keep.txt"])
        #expect(FileManager.default.contents(atPath: outside.appendingPathComponent("keep.txt").path) == Data("keep".utf8))
        #expect(throws: DocumentsError.self) { try tree.install(try temporary(in: directory), at: "../escape.txt") }
    }

    @Test func movesRemovalsAndReadsStayInside() throws {
        let (directory, tree, outside) = try sandbox()
        try tree.install(try temporary(in: directory, "mine"), at: "doc.txt")
        #expect(throws: DocumentsError.self) { try tree.move("doc.txt", to: "link/doc.txt") }
        #expect(throws: DocumentsError.self) { try tree.move("link/keep.txt", to: "stolen.txt") }
        #expect(tree.entry("doc.txt") != nil && tree.entry("link/keep.txt") == nil && tree.entry("link") == nil)
        #expect(!tree.removeFile("link/keep.txt"))
        #expect(throws: DocumentsError.self) { try tree.openForReading("link/keep.txt") }
        try FileManager.default.createDirectory(at: outside.appendingPathComponent("empty"), withIntermediateDirectories: true)
        tree.removeEmptyFolders(above: "link/empty/x.txt")
        #expect(FileManager.default.fileExists(atPath: outside.appendingPathComponent("empty").path), "no folder is removed through a link")
        try tree.move("doc.txt", to: "sub/doc.txt")
        #expect(try String(decoding: tree.openForReading("sub/doc.txt").readToEnd() ?? Data(), as: UTF8.self) == "mine")
        #expect(tree.removeFile("sub/doc.txt"))
        tree.removeEmptyFolders(above: "sub/doc.txt")
        #expect(!FileManager.default.fileExists(atPath: tree.root.appendingPathComponent("sub").path))
        #expect(tree.isFree("sub/doc.txt") && !tree.isFree("link") && !tree.isFree("link/x"))
        #expect(FileManager.default.contents(atPath: outside.appendingPathComponent("keep.txt").path) == Data("keep".utf8))
        directory.remove()
    }
}

/// Conflict-version copies are named by the hash of the record name, never by the name itself.
@Suite struct VersionCopiesTests {
    @Test func copiesAreHashedAndLegacyUUIDCopiesAreRenamedOnOpen() async throws {
        try await DocumentsFixture.run { fixture in
            let root = fixture.directory.url.appendingPathComponent("legacy")
            let versions = root.appendingPathComponent(".stratus/versions")
            try FileManager.default.createDirectory(at: versions, withIntermediateDirectories: true)
            let state = try LocalDocumentState(path: root.appendingPathComponent(".stratus/state.sqlite").path)
            let uuid = UUID().uuidString
            for name in [uuid, "../state.sqlite"] {
                let record = DocumentRecord(
                    recordName: name, path: "a.txt", size: 1, contentHash: String(repeating: "0", count: 64), modified: Date(), device: "d",
                    chunkSize: 1 << 20, chunkHashes: [], document: "doc")
                try state.save(LocalVersion(record: record, uploaded: true, downloaded: true))
            }
            state.close()
            try Data("legacy".utf8).write(to: versions.appendingPathComponent(uuid))

            let documents = try DocumentsContainer(directory: root, container: fixture.container())
            let hashed = VersionCopies.file(uuid, in: versions)
            #expect(hashed.lastPathComponent.count == 64)
            #expect(FileManager.default.contents(atPath: hashed.path) == Data("legacy".utf8))
            #expect(!FileManager.default.fileExists(atPath: versions.appendingPathComponent(uuid).path))
            #expect(VersionCopies.file("../../../x", in: versions).deletingLastPathComponent().path == versions.path)
            #expect(try FileManager.default.contentsOfDirectory(atPath: versions.path) == [hashed.lastPathComponent])
            let stateFile = root.appendingPathComponent(".stratus/state.sqlite").path
            #expect(FileManager.default.fileExists(atPath: stateFile), "'../state.sqlite' is not a legacy copy")
            await documents.close()
        }
    }
}
