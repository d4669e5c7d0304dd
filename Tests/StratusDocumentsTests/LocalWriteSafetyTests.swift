import Foundation
import StratusClient
import StratusDocuments
import StratusTesting
import Testing

/// Local writes check the disk, not only the state database (issue 22, #3, #7, #8 and the small items):
/// a remote change never replaces bytes this device has not uploaded or kept, and a path one device
/// cannot use (a folder there, a name too long) settles by a rule instead of failing at every sync.
/// Serialized: each test runs a server and devices; one at a time leaves the 2 cores to other suites' servers.
@Suite(.serialized) struct LocalWriteSafetyTests {
    /// #3: B renames `x.txt` to `target.txt`; A saves a new `target.txt` while its own sync runs. The rename
    /// must not land on A's new file: both contents survive on both devices.
    @Test func aRemoteRenameNeverOverwritesAFileSavedDuringTheSync() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair()
            try await seed("x.txt", "x content", from: a, to: b)
            try move(b, "x.txt", to: "target.txt")
            try await b.sync()
            let target = a.root.appendingPathComponent("target.txt")
            a.transport.onRequest { request in
                // After A's scan, before the rename comes down: the user saves a new file at the rename's target.
                if request.url.path.hasSuffix("changes/zone"), !FileManager.default.fileExists(atPath: target.path) {
                    try? Data("saved during the sync".utf8).write(to: target)
                }
            }
            try await a.sync()
            a.transport.onRequest(nil)
            #expect(Set(try a.files().compactMap { try a.read($0) }).contains("saved during the sync"), "the new file is not overwritten")
            try await a.sync()
            try await b.sync()
            try await a.sync()
            for device in [a, b] {
                #expect(try device.files().count == 2)
                #expect(Set(try device.files().compactMap { try device.read($0) }) == ["x content", "saved during the sync"])
            }
        }
    }

    /// #7: a file `notes` on A and a folder `notes/` on B: the file moves aside (`notes (A)`), the folder keeps
    /// the name, and both devices end with both, their tokens saved (a further sync moves nothing).
    @Test func aFileAndAFolderOfTheSameNameBothSurvive() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair()
            try a.write("notes", "a file")
            try b.write("notes/todo.txt", "in a folder")
            try await a.sync()
            try await b.sync()
            try await a.sync()
            try await b.sync()
            for device in [a, b] {
                #expect(try device.files() == ["notes (A)", "notes/todo.txt"])
                #expect(try device.read("notes (A)") == "a file")
                #expect(try device.read("notes/todo.txt") == "in a folder")
                #expect(try await device.sync().isEmpty, "nothing is retried")
            }
        }
    }

    /// #7: an empty folder this device never synced does not block a remote file of the same name.
    @Test func anEmptyLocalFolderGivesWayToARemoteFile() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair()
            try FileManager.default.createDirectory(at: b.root.appendingPathComponent("report"), withIntermediateDirectories: true)
            try a.write("report", "the report")
            try await a.sync()
            try await b.sync()
            #expect(try b.read("report") == "the report")
            #expect(try await b.sync().isEmpty)
        }
    }

    /// #8: two documents with the same 253-byte name — a long stem, or a long "extension" after an early
    /// dot — settle under a second name that fits in 255 bytes, instead of failing at every sync.
    @Test(arguments: [String(repeating: "n", count: 249) + ".txt", "v." + String(repeating: "e", count: 251)])
    func aCollisionRenameOfALongNameFitsInTheFileSystem(_ name: String) async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair()
            #expect(name.utf8.count == 253)
            try a.write(name, "from A")
            try b.write(name, "from B")
            try await a.sync()
            try await b.sync()
            try await a.sync()
            try await b.sync()
            for device in [a, b] {
                let files = try device.files()
                #expect(files.count == 2)
                #expect(files.allSatisfy { $0.utf8.count <= 255 })
                #expect(Set(try files.compactMap { try device.read($0) }) == ["from A", "from B"])
                #expect(try await device.sync().isEmpty)
            }
        }
    }

    /// A remote deletion of a file edited here while the sync ran keeps the file, and says so (not "deleted here").
    @Test func aDeletionThatKeepsAnEditedFileSaysItKeptIt() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair()
            try await seed("p.txt", "v1", from: a, to: b)
            try FileManager.default.removeItem(at: a.root.appendingPathComponent("p.txt"))
            try await a.sync()
            let file = b.root.appendingPathComponent("p.txt")
            b.transport.onRequest { request in
                if request.url.path.hasSuffix("changes/zone") { try? Data("edited during the sync".utf8).write(to: file) }
            }
            let report = try await b.sync()
            b.transport.onRequest(nil)
            #expect(try b.read("p.txt") == "edited during the sync")
            #expect(!report.activities.map(\.description).contains("✕ p.txt (deleted here)"))
            #expect(report.activities.map(\.description).contains { $0.contains("p.txt") && $0.contains("kept") })
            try await b.sync()
            try await a.sync()
            #expect(try a.read("p.txt") == "edited during the sync")
        }
    }

    /// A local symbolic link where a remote document goes stays a link, and the sync says why the document is not there.
    @Test func aLocalSymbolicLinkAtARemotePathIsKeptAndReported() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair()
            try FileManager.default.createSymbolicLink(atPath: b.root.appendingPathComponent("link.txt").path, withDestinationPath: "elsewhere.txt")
            try a.write("link.txt", "remote")
            try await a.sync()
            let report = try await b.sync()
            let destination = try FileManager.default.destinationOfSymbolicLink(atPath: b.root.appendingPathComponent("link.txt").path)
            #expect(destination == "elsewhere.txt", "the link is not replaced")
            #expect(report.activities.map(\.description).contains { $0.contains("link.txt") && $0.contains("symbolic link") })
            #expect(try await b.sync().isEmpty)
        }
    }

    /// A file edited inside a folder another device deleted is back on every device after one sync of each.
    @Test func anEditInsideAFolderDeletedElsewhereNeedsOneSync() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair()
            try a.write("F/a.txt", "a")
            try await seed("F/b.txt", "b", from: a, to: b)
            try FileManager.default.removeItem(at: a.root.appendingPathComponent("F"))
            try await a.sync()
            try b.write("F/a.txt", "edited on B")
            try await b.sync()
            #expect(try b.files() == ["F/a.txt"])
            try await a.sync()
            #expect(try a.files() == ["F/a.txt"])
            #expect(try a.read("F/a.txt") == "edited on B")
        }
    }

    private func move(_ device: Device, _ from: String, to: String) throws {
        try FileManager.default.moveItem(at: device.root.appendingPathComponent(from), to: device.root.appendingPathComponent(to))
    }
}
