import Foundation
import StratusTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `stratus backup` of a server that keeps writing, `stratus restore` into a new data directory,
/// and archives from elsewhere (issue 18).
@Suite struct BackupRestoreTests {
    static let container = "iCloud.com.example.Backups"

    static func post(_ server: WebServeProcess, _ endpoint: String, _ body: String) async throws -> (status: Int?, json: [String: Any]) {
        let path = "/database/1/\(container)/development/private/\(endpoint)"
        let request =
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        let reply = try await server.exchange(request)
        return (reply.status, (try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any] ?? [:])
    }

    static let zone = #"{"zoneName":"Notes"}"#

    static func save(_ server: WebServeProcess, _ name: String) async throws -> Bool {
        let body =
            #"{"zoneID":\#(zone),"operations":[{"operationType":"create","record":{"recordType":"Note","recordName":"\#(name)","fields":{"title":{"value":"\#(name)"}}}}]}"#
        let reply = try await post(server, "records/modify", body)
        let records = reply.json["records"] as? [[String: Any]] ?? []
        return reply.status == 200 && records.first?["serverErrorCode"] == nil && records.first?["recordName"] as? String == name
    }

    static func changes(_ server: WebServeProcess, token: String?) async throws -> (status: Int?, names: [String], token: String?) {
        let tokenField = token.map { #","syncToken":"\#($0)""# } ?? ""
        let reply = try await post(server, "records/changes", #"{"zoneID":\#(zone)\#(tokenField)}"#)
        let names = (reply.json["records"] as? [[String: Any]] ?? []).compactMap { $0["recordName"] as? String }
        return (reply.status, names, reply.json["syncToken"] as? String)
    }

    static let photoBytes = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    /// Uploads ``photoBytes`` and saves them in the record `photo`: the asset the backup must carry.
    static func savePhoto(_ server: WebServeProcess) async throws {
        let tokens = try await post(server, "assets/upload", #"{"zoneID":\#(zone),"tokens":[{"recordName":"photo","recordType":"Photo","fieldName":"image"}]}"#)
        let text = try #require((tokens.json["tokens"] as? [[String: Any]])?.first?["url"] as? String)
        var upload = URLRequest(url: try #require(URL(string: text)))
        upload.httpMethod = "POST"
        upload.httpBody = photoBytes
        let (receiptBody, _) = try await URLSession.shared.data(for: upload)
        let receipt = try #require((try JSONSerialization.jsonObject(with: receiptBody) as? [String: Any])?["singleFile"])
        let asset = String(decoding: try JSONSerialization.data(withJSONObject: receipt), as: UTF8.self)
        let body =
            #"{"zoneID":\#(zone),"operations":[{"operationType":"create","record":{"recordType":"Photo","recordName":"photo","fields":{"image":{"value":\#(asset)}}}}]}"#
        #expect(try await post(server, "records/modify", body).status == 200)
    }

    /// The bytes of `photo`'s asset as the server serves them.
    static func photo(_ server: WebServeProcess) async throws -> Data {
        let lookup = try await post(server, "records/lookup", #"{"zoneID":\#(zone),"records":[{"recordName":"photo"}]}"#)
        let record = try #require((lookup.json["records"] as? [[String: Any]])?.first)
        let image = (record["fields"] as? [String: Any])?["image"] as? [String: Any]
        let url = try #require((image?["value"] as? [String: Any])?["downloadURL"] as? String)
        let (bytes, _) = try await URLSession.shared.data(from: try #require(URL(string: url.replacingOccurrences(of: "${f}", with: "photo.bin"))))
        return bytes
    }

    /// Writes go on during the backup; the restored server holds every write acknowledged before
    /// the backup started, no write it never acknowledged, and opens the old server's sync tokens.
    @Test func aBackupOfAWritingServerRestoresEveryAcknowledgedWrite() async throws {
        let scratch = try TemporaryDirectory(prefix: "stratus-backup")
        defer { scratch.remove() }
        let archive = scratch.url.appendingPathComponent("backup.tar")
        var acknowledgedBefore: [String] = []
        var token: String?
        var acknowledgedAll: Set<String> = []
        try await WebServeProcess.with(["--open"]) { server in
            #expect(try await WebServeProcess.stratus(["container", "create", Self.container], dataDirectory: server.dataDirectory).status == 0)
            let made = try await Self.post(server, "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":\#(Self.zone)}}]}"#)
            #expect(made.status == 200)
            for index in 0..<20 where try await Self.save(server, "before-\(index)") { acknowledgedBefore.append("before-\(index)") }
            try await Self.savePhoto(server)
            acknowledgedBefore.append("photo")
            token = try await Self.changes(server, token: nil).token
            let writer = Task {
                var written: [String] = []
                for index in 0..<2000 where !Task.isCancelled {
                    if (try? await Self.save(server, "during-\(index)")) == true { written.append("during-\(index)") }
                }
                return written
            }
            let backup = try await WebServeProcess.stratus(["backup", archive.path], dataDirectory: server.dataDirectory)
            writer.cancel()
            acknowledgedAll = Set(acknowledgedBefore + (await writer.value))
            #expect(backup.status == 0, "\(backup.errorOutput)")
            #expect(backup.output.contains("backed up"), "\(backup.output)")
        }
        let mode = (try FileManager.default.attributesOfItem(atPath: archive.path)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)

        let restoredData = scratch.path("restored")
        let restore = try await WebServeProcess.stratus(["restore", archive.path], dataDirectory: restoredData)
        #expect(restore.status == 0, "\(restore.errorOutput)")
        let again = try await WebServeProcess.stratus(["restore", archive.path], dataDirectory: restoredData)
        #expect(again.status != 0 && again.errorOutput.contains("already holds a database"), "\(again.errorOutput)")

        try await WebServeProcess.with(["--open", "--data-dir", restoredData]) { server in
            let everything = try await Self.changes(server, token: nil)
            #expect(everything.status == 200)
            let restored = Set(everything.names)
            #expect(Set(acknowledgedBefore).isSubset(of: restored), "missing: \(Set(acknowledgedBefore).subtracting(restored).sorted())")
            #expect(restored.isSubset(of: acknowledgedAll), "never acknowledged: \(restored.subtracting(acknowledgedAll).sorted())")
            let delta = try await Self.changes(server, token: token)
            #expect(delta.status == 200, "the old server's sync token must open on the restored one")
            #expect(try await Self.photo(server) == Self.photoBytes, "the asset must come back byte for byte")
            let ready = try await server.exchange("GET /ready HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            #expect(ready.status == 200 && String(decoding: ready.body, as: UTF8.self) == #"{"status":"ready"}"#)
        }
    }
}

extension BackupRestoreTests {
    /// `--backup-every 1s --backup-keep 2`: archives keep coming, only the newest two stay, and
    /// the newest restores.
    @Test func scheduledBackupsRotateAndRestore() async throws {
        let scratch = try TemporaryDirectory(prefix: "stratus-scheduled-backup")
        defer { scratch.remove() }
        let folder = scratch.path("backups")
        var seen: Set<String> = []
        var newest: String?
        try await WebServeProcess.with(["--open", "--backup-every", "1s", "--backup-keep", "2", "--backup-directory", folder]) { server in
            let created = try await WebServeProcess.stratus(["container", "create", Self.container], dataDirectory: server.dataDirectory)
            #expect(created.status == 0)
            let rotated = await eventually(timeout: .seconds(60)) {
                let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".tar") }
                seen.formUnion(names)
                return seen.count >= 4 && names.count == 2
            }
            #expect(rotated, "archives seen: \(seen.sorted())")
            newest = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".tar") }.sorted().last
        }
        let archive = try #require(newest)
        let restore = try await WebServeProcess.stratus(["restore", folder + "/" + archive], dataDirectory: scratch.path("restored"))
        #expect(restore.status == 0, "\(restore.errorOutput)")
        let refused = try await WebServeProcess.refusal(["--backup-every", "often"])
        #expect(refused.status != 0 && refused.errors.contains("--backup-every"), "\(refused.errors)")
    }
}

/// A backup archive is a file from outside: restore must never write where the archive says, and
/// must refuse anything damaged before it moves a byte into the data directory.
@Suite struct HostileBackupArchiveTests {
    /// Makes a tar with Python's `tarfile`: `entries` are (name, type, content), type "file" or "symlink".
    static func tar(_ path: String, _ entries: [(String, String, String)]) async throws {
        let spec = entries.map { "(\(Self.quote($0.0)), \(Self.quote($0.1)), \(Self.quote($0.2)))" }.joined(separator: ", ")
        let program = """
            import io, sys, tarfile
            with tarfile.open(sys.argv[1], "w", format=tarfile.USTAR_FORMAT) as out:
                for name, kind, content in [\(spec)]:
                    info = tarfile.TarInfo(name)
                    if kind == "symlink":
                        info.type = tarfile.SYMTYPE; info.linkname = content; out.addfile(info)
                    else:
                        data = content.encode(); info.size = len(data); out.addfile(info, io.BytesIO(data))
            """
        let result = try await SpawnedCommand.run("/usr/bin/env", ["python3", "-c", program, path], environment: ProcessInfo.processInfo.environment)
        #expect(result.status == 0, "\(result.errorOutput)")
    }

    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    static func restore(_ archive: String, into directory: String) async throws -> SpawnedCommand.Result {
        try await WebServeProcess.stratus(["restore", archive], dataDirectory: directory)
    }

    @Test func pathsAndLinksFromTheArchiveAreRefused() async throws {
        let scratch = try TemporaryDirectory(prefix: "stratus-hostile-backup")
        defer { scratch.remove() }
        let traversal = scratch.path("traversal.tar")
        try await Self.tar(traversal, [("../escaped.txt", "file", "owned"), ("database.sqlite", "file", "x")])
        let refused = try await Self.restore(traversal, into: scratch.path("data"))
        #expect(refused.status != 0)
        #expect(refused.errorOutput.contains("not part of a Stratus backup"), "\(refused.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("escaped.txt")))

        let link = scratch.path("link.tar")
        try await Self.tar(link, [("token-secret", "symlink", "/etc/passwd")])
        let linked = try await Self.restore(link, into: scratch.path("data2"))
        #expect(linked.status != 0)
        #expect(linked.errorOutput.contains("not a regular file"), "\(linked.errorOutput)")

        let absolute = scratch.path("absolute.tar")
        try await Self.tar(absolute, [(scratch.path("absolute-escape"), "file", "owned")])
        let rooted = try await Self.restore(absolute, into: scratch.path("data3"))
        #expect(rooted.status != 0)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("absolute-escape")))
    }

    @Test func damagedOrIncompleteArchivesAreRefusedAndNothingIsRestored() async throws {
        let scratch = try TemporaryDirectory(prefix: "stratus-hostile-backup")
        defer { scratch.remove() }
        let noManifest = scratch.path("no-manifest.tar")
        try await Self.tar(noManifest, [("database.sqlite", "file", "not a database")])
        let missing = try await Self.restore(noManifest, into: scratch.path("a"))
        #expect(missing.status != 0 && missing.errorOutput.contains("no manifest"), "\(missing.errorOutput)")

        let lying = scratch.path("lying.tar")
        let manifest =
            #"{"format":"stratus-backup","version":1,"createdAt":"2026-12-01T00:00:00Z","database":"sqlite","files":[{"name":"database.sqlite","size":14,"sha256":"00"}]}"#
        try await Self.tar(lying, [("database.sqlite", "file", "not a database"), ("stratus-backup.json", "file", manifest)])
        let tampered = try await Self.restore(lying, into: scratch.path("b"))
        #expect(tampered.status != 0 && tampered.errorOutput.contains("does not match the manifest"), "\(tampered.errorOutput)")

        let future = scratch.path("future.tar")
        try await Self.tar(future, [("stratus-backup.json", "file", manifest.replacingOccurrences(of: #""version":1"#, with: #""version":9"#))])
        let newer = try await Self.restore(future, into: scratch.path("c"))
        #expect(newer.status != 0 && newer.errorOutput.contains("version 9"), "\(newer.errorOutput)")

        let truncated = scratch.path("truncated.tar")
        try await Self.tar(truncated, [("database.sqlite", "file", String(repeating: "x", count: 5000))])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: truncated))
        try bytes.prefix(2048).write(to: URL(fileURLWithPath: truncated))
        let cut = try await Self.restore(truncated, into: scratch.path("d"))
        #expect(cut.status != 0 && cut.errorOutput.contains("truncated"), "\(cut.errorOutput)")
        for name in ["a", "b", "c", "d"] {
            #expect(!FileManager.default.fileExists(atPath: scratch.path(name) + "/stratus.sqlite"))
        }
    }
}
