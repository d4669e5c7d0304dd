import Foundation
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 12: another user of the machine must not read the data directory (password hashes,
    /// e-mail addresses, session IDs, the token secret, users' assets).
    @Suite("12 data directory readable by other users") struct DataFilePermissionAttacks {
        static let container = "iCloud.com.example.Perms"

        /// Every file and folder under `root` whose mode lets anyone but the owner in, with its mode.
        static func exposed(under root: String) throws -> [String] {
            var found: [String] = []
            let manager = FileManager.default
            let items = [root] + (manager.subpaths(atPath: root) ?? []).map { root + "/" + $0 }
            for path in items {
                let mode = (try manager.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? 0o777
                if mode & 0o077 != 0 { found.append("\(path) \(String(mode, radix: 8))") }
            }
            return found
        }

        /// Saves a record with an asset through the child's HTTP API (open mode), so the store, its WAL and an asset file exist.
        static func writeSomething(port: UInt16) async throws {
            let base = "/database/1/\(container)/development/private"
            let upload = try await post(port, base + "/assets/upload", #"{"tokens":[{"recordName":"p","recordType":"Photo","fieldName":"image"}]}"#)
            let url = try #require(upload.json["tokens"]?[0]?["url"]?.stringValue, "\(upload.text)")
            let uploadURL = try #require(URL(string: url))
            let receipt = try await post(port, uploadURL.path, "private photo bytes")
            let asset = try #require(receipt.json["singleFile"], "\(receipt.text)")
            let save =
                #"{"operations":[{"operationType":"create","record":{"recordName":"p","recordType":"Photo","fields":{"image":{"value":\#(try asset.serializedString()),"type":"ASSETID"}}}}]}"#
            let saved = try await post(port, base + "/records/modify", save)
            #expect(saved.status == 200 && !saved.text.contains("serverErrorCode"), "\(saved.text)")
        }

        static func post(_ port: UInt16, _ path: String, _ body: String) async throws -> (status: Int, json: JSONValue, text: String) {
            let request = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            let reply = try await RawHTTPConnection.exchange(port: port, request)
            return (reply.status ?? 0, (try? JSONValue(parsing: reply.body)) ?? .null, String(decoding: reply.body, as: UTF8.self))
        }

        @Test func aNewDataDirectoryAndEverythingInItIsTheServersUsersOnly() async throws {
            let scratch = try TemporaryDirectory(prefix: "stratus-perms")
            defer { scratch.remove() }
            let data = scratch.path("data")
            _ = try await StratusChildProcess.run(["container", "create", Self.container, "--data-dir", data])
            let child = try await StratusChildProcess.serve(dataDirectory: data, logPath: scratch.path("serve.log"))
            defer { child.killHard() }
            try await Self.writeSomething(port: child.port)
            #expect(FileManager.default.fileExists(atPath: data + "/stratus.sqlite-wal"))
            #expect(!(FileManager.default.subpaths(atPath: data + "/assets/objects") ?? []).isEmpty, "no asset file was written")
            #expect(try Self.exposed(under: data) == [])
        }

        @Test func aDataDirectoryAnOlderVersionLeftOpenIsNarrowedAtStart() async throws {
            let scratch = try TemporaryDirectory(prefix: "stratus-perms-old")
            defer { scratch.remove() }
            let data = scratch.path("data")
            _ = try await StratusChildProcess.run(["container", "create", Self.container, "--data-dir", data])
            // As versions before the fix left it: a world-readable folder and database.
            chmod(data, 0o755)
            chmod(data + "/stratus.sqlite", 0o644)
            let child = try await StratusChildProcess.serve(dataDirectory: data, logPath: scratch.path("serve.log"))
            defer { child.killHard() }
            try await Self.writeSomething(port: child.port)
            #expect(try Self.exposed(under: data) == [])
        }
    }
}
