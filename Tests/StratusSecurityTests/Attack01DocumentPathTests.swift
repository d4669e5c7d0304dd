import Foundation
import StratusClient
import StratusClientCommands
import StratusDocuments
import StratusTesting
import StratusWire
import Synchronization
import Testing

extension AttackSuite {
    /// Finding 1: `Document` paths and `DocumentVersion` record names from the server must never
    /// reach outside the synced folder — no `..`, no absolute paths, no symbolic links on the way —
    /// and a bad record is skipped without stopping the sync of the good ones.
    ///
    /// Each test plants hostile records straight into the user's `StratusDocuments` zone on a live
    /// server (as a malicious server or another client of the account would), syncs a real
    /// `DocumentsContainer`, and checks that everything beside the folder is byte-identical.
    @Suite("01 documents path traversal", .serialized)
    struct DocumentPathAttacks {
        @Test func hostilePathsChangeNothingOutsideTheFolderAndGoodRecordsStillSync() async throws {
            try await HostileDocumentsFixture.run { fixture in
                let fm = FileManager.default
                try fm.createDirectory(at: fixture.outside.appendingPathComponent("linked"), withIntermediateDirectories: true)
                try Data("sentinel".utf8).write(to: fixture.outside.appendingPathComponent("existing.txt"))
                try Data("linked".utf8).write(to: fixture.outside.appendingPathComponent("linked/kept.txt"))
                let victim = try fixture.victim()
                try fixture.linkInsideRoot("link", to: "linked")
                try victim.coordinateWriting(at: "photos/mine.jpg") { try Data("jpeg".utf8).write(to: $0) }
                try await victim.sync()
                let before = treeSnapshot(fixture.outside)

                let hostile = [
                    "../outside/new.txt", "../outside/existing.txt", fixture.outside.appendingPathComponent("absolute.txt").path,
                    "a/../../outside/traversed.txt", "link/planted.txt", "photos", String(repeating: "n", count: 300) + ".txt",
                    "nul\u{0}/../../outside/nul.txt", ".stratus/state.sqlite", ".stratus/versions/planted", ".STRATUS/cased.txt",
                    "./dot.txt", "empty//component.txt", "trailing/", "escape\u{1B}[31m.txt", "",
                ]
                let attacker = fixture.attacker
                let good = try [attacker.document("good.txt", "good"), attacker.document("nested/deeper/good.txt", "deep")]
                try await attacker.save(try hostile.map { try attacker.document($0, "pwned") } + good)

                let error = await failure { try await victim.sync() }
                #expect(error == nil, "a hostile record is skipped, it does not fail the sync: \(String(describing: error))")
                #expect(treeSnapshot(fixture.outside) == before, "nothing outside the synced folder changed")
                // A document at "photos", where the victim has a folder: the folder keeps the name, the document
                // lands beside it under the collision rule (issue 22, #7), inside the folder like any document.
                #expect(documentFiles(in: fixture.root) == ["good.txt", "nested/deeper/good.txt", "photos (attacker)", "photos/mine.jpg"])
                #expect(try String(contentsOf: fixture.root.appendingPathComponent("nested/deeper/good.txt"), encoding: .utf8) == "deep")
                #expect(treeSnapshot(fixture.root)["link"]?.hasPrefix("link → ") == true, "the user's symbolic link is left alone")

                try await attacker.save([attacker.document("later.txt", "later")])
                let again = await failure { try await victim.sync() }
                #expect(again == nil, "the sync is not stuck on the hostile records: \(String(describing: again))")
                #expect(documentFiles(in: fixture.root).contains("later.txt"))
                #expect(treeSnapshot(fixture.outside) == before)
                await victim.close()
            }
        }

        @Test func hostileRenamesNeverMoveAFileOutOfTheFolder() async throws {
            try await HostileDocumentsFixture.run { fixture in
                let fm = FileManager.default
                try fm.createDirectory(at: fixture.outside.appendingPathComponent("linked"), withIntermediateDirectories: true)
                let victim = try fixture.victim()
                try fixture.linkInsideRoot("link", to: "linked")
                for name in ["a", "b", "c", "d"] {
                    try victim.coordinateWriting(at: "\(name).txt") { try Data("mine \(name)".utf8).write(to: $0) }
                }
                try await victim.sync()
                let ids = Dictionary(uniqueKeysWithValues: try await victim.documents().map { ($0.path, $0.id) })
                let before = treeSnapshot(fixture.outside)

                let attacker = fixture.attacker
                try await attacker.save([
                    try await attacker.renaming(try #require(ids["a.txt"]), to: "link/a.txt"),
                    try await attacker.renaming(try #require(ids["b.txt"]), to: "../b.txt"),
                    try await attacker.renaming(try #require(ids["c.txt"]), to: "sub/../../c.txt"),
                    try await attacker.renaming(try #require(ids["d.txt"]), to: "sub/d.txt"),
                ])
                let error = await failure { try await victim.sync() }
                #expect(error == nil, "\(String(describing: error))")
                #expect(treeSnapshot(fixture.outside) == before, "no file was moved out of the folder")
                let files = documentFiles(in: fixture.root)
                #expect(files.contains("a.txt") && files.contains("b.txt") && files.contains("c.txt"), "the bytes stay in the folder: \(files)")
                #expect(files.contains("sub/d.txt"), "a good rename still applies")
                #expect(try String(contentsOf: fixture.root.appendingPathComponent("a.txt"), encoding: .utf8) == "mine a")
                let next = await failure { try await victim.sync() }
                #expect(next == nil, "\(String(describing: next))")
                #expect(treeSnapshot(fixture.outside) == before)
                await victim.close()
            }
        }

        @Test func conflictVersionsNamedWithDotsNeitherWriteNorDeleteOutside() async throws {
            try await HostileDocumentsFixture.run { fixture in
                let fm = FileManager.default
                try fm.createDirectory(at: fixture.outside.appendingPathComponent("victim-dir"), withIntermediateDirectories: true)
                try Data("keep".utf8).write(to: fixture.outside.appendingPathComponent("victim-dir/keep.txt"))
                let victim = try fixture.victim()
                try victim.coordinateWriting(at: "dir/precious.txt") { try Data("precious".utf8).write(to: $0) }
                try victim.coordinateWriting(at: "notes.txt") { try Data("notes".utf8).write(to: $0) }
                try await victim.sync()
                let notes = try #require(try await victim.documents().first { $0.path == "notes.txt" })
                let before = treeSnapshot(fixture.outside)
                let rootBefore = treeSnapshot(fixture.root).filter { !$0.key.hasPrefix(".stratus") }

                let attacker = fixture.attacker
                let names = ["../../../outside/victim-dir", "../../dir", "../../../outside/planted-version", "../state.sqlite"]
                try await attacker.save(try names.map { try attacker.version(named: $0, of: notes.id, path: "notes.txt", "version \($0)") })
                #expect(await failure { try await victim.sync() } == nil)
                let versions = try await victim.unresolvedConflictVersions(of: "notes.txt")
                #expect(versions.count == names.count)
                let folder = fixture.root.appendingPathComponent(".stratus/versions").standardizedFileURL.path + "/"
                for version in versions {
                    let error = await failure {
                        let file = try await victim.contents(of: version)
                        #expect(file.standardizedFileURL.path.hasPrefix(folder), "\(file.path) is a local copy in .stratus/versions")
                        #expect(try String(contentsOf: file, encoding: .utf8) == "version \(version.id)")
                    }
                    #expect(error == nil, "\(String(describing: error))")
                }
                #expect(treeSnapshot(fixture.outside) == before, "downloading a version writes nothing outside")

                try await attacker.delete(names)
                #expect(await failure { try await victim.sync() } == nil)
                #expect(try await victim.unresolvedConflictVersions(of: "notes.txt").isEmpty)
                #expect(treeSnapshot(fixture.outside) == before, "deleting a version removes nothing outside")
                #expect(treeSnapshot(fixture.root).filter { !$0.key.hasPrefix(".stratus") } == rootBefore, "nor any folder of the user")
                #expect(fm.fileExists(atPath: fixture.root.appendingPathComponent(".stratus/state.sqlite").path))
                await victim.close()
            }
        }

        @Test func recordsWithAbsurdSizesAreSkippedWithoutCrashing() async throws {
            try await HostileDocumentsFixture.run { fixture in
                let victim = try fixture.victim()
                try await victim.sync()
                let attacker = fixture.attacker
                try await attacker.save([
                    try attacker.document("overflow.txt", "x", size: .max),
                    try attacker.document("negative.txt", "x", size: -1),
                    try attacker.document("huge-chunks.txt", "x", chunkSize: .max),
                    try attacker.document("good.txt", "good"),
                ])
                #expect(await failure { try await victim.sync() } == nil)
                #expect(documentFiles(in: fixture.root) == ["good.txt"])
                await victim.close()
            }
        }

        @Test func docsSyncOnceFromTheCommandLineStaysInsideTheFolder() async throws {
            try await HostileDocumentsFixture.run { fixture in
                let attacker = fixture.attacker
                try await attacker.ensureZone()
                let good = try attacker.document("cli-good.txt", "good")
                try await attacker.save([
                    good, try attacker.document("../cli-escape.txt", "pwned"), try attacker.document("../outside/cli.txt", "pwned"),
                    try attacker.version(
                        named: "../../../outside/cli-version", of: good.recordID.recordName, path: "cli-good.txt", "v",
                        device: "evil\u{1B}]0;pwned\u{7}"),
                ])
                try await attacker.save([try attacker.document("cli-later.txt", "later")])
                try FileManager.default.createDirectory(at: fixture.outside, withIntermediateDirectories: true)
                let before = treeSnapshot(fixture.sandbox.url).filter { !$0.key.hasPrefix("root") }
                let lines = Mutex<[String]>([])
                let output = ClientOutput { line in lines.withLock { $0.append(line) } }
                try await ClientCommands.run(
                    "docs", arguments: ["sync", fixture.root.path, "--once"] + fixture.commandFlags, environment: [:], output: output)
                #expect(treeSnapshot(fixture.sandbox.url).filter { !$0.key.hasPrefix("root") } == before)
                #expect(documentFiles(in: fixture.root) == ["cli-good.txt", "cli-later.txt"])
                let printed = lines.withLock { $0 }
                #expect(printed.contains { $0.contains("cli-good.txt") })
                #expect(!printed.contains { $0.unicodeScalars.contains { $0.properties.generalCategory == .control } }, "\(printed)")
            }
        }
    }
}
