import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `stratus export` and `stratus import`: a container moved SQLite → SQLite → PostgreSQL → SQLite
/// keeps its records, change tags, shares, subscriptions, accounts and assets (issue 18).
@Suite struct ExportImportTests {
    static let container = TestCloudKitServer.container
    static let photoBytes = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })

    /// What the source server held, as its clients saw it.
    struct Source {
        var owner: TestCloudKitServer.SignedInUser
        var reader: TestCloudKitServer.SignedInUser
        /// `records/lookup` of the zone's records, as the owner saw it.
        var lookup: JSONValue
        var tags: [String: String]
    }

    static let names = ["t1", "t2", "photo", "cloudkit.zoneshare"]

    static func lookupBody(zone: String = "Projects") -> String {
        #"{"zoneID":{"zoneName":"\#(zone)"},"records":[\#(names.map { #"{"recordName":"\#($0)"}"# }.joined(separator: ","))]}"#
    }

    /// Writes a container with history (updates, a deletion), every field type, a DELETE_SELF
    /// reference, an asset, a zone share another user accepted, a subscription and a public record.
    static func fill(_ server: TestCloudKitServer) async throws -> Source {
        let a = try await server.signedInUser("owner@example.com", names: NameComponents(givenName: "Ada"))
        let b = try await server.signedInUser("reader@example.com")
        func modify(_ body: String, _ user: TestCloudKitServer.SignedInUser, database: String = "private") async throws {
            let reply = try await server.exchange("records/modify", body, database: database, query: user.query)
            #expect(reply.status == 200 && !reply.text.contains("serverErrorCode"), "\(reply.text)")
        }
        #expect(try await server.exchange("zones/modify", Body.createZone("Projects"), query: a.query).itemCodes("zones") == [nil])
        let everything = #"""
            {"title":{"value":"plan"},"count":{"value":42,"type":"INT64"},"ratio":{"value":0.1,"type":"DOUBLE"},
             "when":{"value":1700000000123,"type":"TIMESTAMP"},"blob":{"value":"AQID","type":"BYTES"},
             "where":{"value":{"latitude":1.5,"longitude":-2.25},"type":"LOCATION"},"tags":{"value":["a","b"],"type":"STRING_LIST"}}
            """#
        try await modify(
            #"{"zoneID":{"zoneName":"Projects"},"operations":[{"operationType":"create","record":{"recordName":"t1","recordType":"Note","fields":\#(everything)}}]}"#,
            a)
        try await modify(Body.create("gone", zone: "Projects"), a)
        try await modify(Body.forceDelete("gone", zone: "Projects"), a)
        try await modify(
            #"{"zoneID":{"zoneName":"Projects"},"operations":[{"operationType":"create","record":{"recordName":"t2","recordType":"Task","fields":{"note":{"value":{"recordName":"t1","action":"DELETE_SELF"},"type":"REFERENCE"}}}}]}"#,
            a)
        try await modify(
            #"{"zoneID":{"zoneName":"Projects"},"operations":[{"operationType":"forceUpdate","record":{"recordName":"t1","recordType":"Note","fields":{"title":{"value":"plan, revised"}}}}]}"#,
            a)
        let asset = try await server.uploadAsset(photoBytes, recordType: "Photo", fieldName: "image", query: a.query)
        let assetJSON = String(decoding: try WireCoding.encode(asset), as: UTF8.self)
        try await modify(
            #"{"zoneID":{"zoneName":"Projects"},"operations":[{"operationType":"create","record":{"recordName":"photo","recordType":"Photo","fields":{"image":{"value":\#(assetJSON)}}}}]}"#,
            a)
        let share =
            #"{"zoneID":{"zoneName":"Projects"},"operations":[{"operationType":"create","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","fields":{},"publicPermission":"NONE","participants":[{"type":"USER","permission":"READ_WRITE","acceptanceStatus":"INVITED","userIdentity":{"lookupInfo":{"emailAddress":"reader@example.com"}}}]}}]}"#
        let created = try await server.exchange("records/modify", share, query: a.query)
        let guid = try #require(created.strings("records", "shortGUID").first, "\(created.text)")
        let accepted = try await server.exchange("records/accept", #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, database: "public", query: b.query)
        #expect(accepted.text.contains("ACCEPTED"), "\(accepted.text)")
        let subscription =
            #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"projects","subscriptionType":"zone","zoneID":{"zoneName":"Projects"}}}]}"#
        #expect(try await server.exchange("subscriptions/modify", subscription, query: a.query).status == 200)
        try await modify(Body.create("notice", title: "hello"), a, database: "public")
        try await modify(Body.create("mine", title: "b's own"), b)
        let lookup = try await server.exchange("records/lookup", lookupBody(), query: a.query)
        var tags: [String: String] = [:]
        for case .object(let record) in lookup.json["records"]?.arrayValue ?? [] {
            if let name = record["recordName"]?.stringValue { tags[name] = record["recordChangeTag"]?.stringValue }
        }
        #expect(tags.count == names.count, "\(lookup.text)")
        return Source(owner: a, reader: b, lookup: lookup.json, tags: tags)
    }

    static func stratus(_ arguments: [String], dataDirectory: String) async throws -> SpawnedCommand.Result {
        let result = try await WebServeProcess.stratus(arguments, dataDirectory: dataDirectory)
        #expect(result.status == 0, "stratus \(arguments.joined(separator: " ")): \(result.errorOutput)")
        return result
    }

    /// Every file of an export but the manifest, and the manifest's file list and counts.
    static func contents(of directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let manifest = try JSONDecoder().decode(ExportManifest.self, from: Data(contentsOf: directory.appendingPathComponent("stratus-export.json")))
        for file in manifest.files { files[file.name] = try Data(contentsOf: directory.appendingPathComponent(file.name)) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        files["(manifest files)"] = try encoder.encode(manifest.files)
        files["(manifest counts)"] = try encoder.encode(manifest.counts)
        return files
    }

    @Test func aContainerMovedThroughEveryBackEndKeepsItsRecordsChangeTagsAndAssets() async throws {
        let scratch = try TemporaryDirectory(prefix: "stratus-export")
        defer { scratch.remove() }
        let first = scratch.url.appendingPathComponent("export-1")
        let server = try await TestCloudKitServer.startAuthenticated()
        let source: Source
        do {
            source = try await Self.fill(server)
            // Exported while the server runs, from its data directory.
            let exported = try await Self.stratus(["export", Self.container, "--output", first.path], dataDirectory: server.directory.url.path)
            #expect(exported.output.contains("6 record(s)"), "\(exported.output)")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        let original = try Self.contents(of: first)
        #expect(original.keys.contains { $0.hasPrefix("assets/") }, "the export must carry the asset")
        let records = String(decoding: original["records.jsonl"] ?? Data(), as: UTF8.self)
        #expect(!records.contains(#""gone""#), "a deleted record is history the export collapses")

        var hops: [(arguments: [String], dataDirectory: String)] = [([], scratch.path("sqlite-1"))]
        let postgres = PostgresTestDatabase.isEnabled ? try PostgresScratchDatabase.create() : nil
        defer { postgres?.drop() }
        if let postgres { hops.append((["--database", postgres.url], scratch.path("postgres-assets"))) }
        hops.append(([], scratch.path("sqlite-2")))
        var previous = first
        for (index, hop) in hops.enumerated() {
            _ = try await Self.stratus(["import", previous.path] + hop.arguments, dataDirectory: hop.dataDirectory)
            let next = scratch.url.appendingPathComponent("export-\(index + 2)")
            _ = try await Self.stratus(["export", Self.container, "--output", next.path] + hop.arguments, dataDirectory: hop.dataDirectory)
            let again = try Self.contents(of: next)
            #expect(again.keys.sorted() == original.keys.sorted())
            for (name, bytes) in original where again[name] != bytes {
                Issue.record(
                    "hop \(index + 1) changed \(name):\n\(String(decoding: bytes, as: UTF8.self).prefix(2000))\n→\n\(String(decoding: again[name] ?? Data(), as: UTF8.self).prefix(2000))"
                )
            }
            previous = next
        }
        try await Self.checkServed(source, dataDirectory: hops[hops.count - 1].dataDirectory)
    }

    /// The attack: an operator disabled Ada, then restored a backup or moved the server with
    /// `stratus export`/`stratus import`; Ada's right password must still open nothing. Bob, never
    /// disabled, has no `disabledAt` in his line (as in every export made before accounts could be
    /// disabled) and imports enabled.
    @Test func aDisabledAccountStaysDisabledThroughExportAndImport() async throws {
        let scratch = try TemporaryDirectory(prefix: "stratus-export-disabled")
        defer { scratch.remove() }
        let exported = scratch.url.appendingPathComponent("export")
        let server = try await TestCloudKitServer.startAuthenticated()
        let ada: TestCloudKitServer.SignedInUser
        let bob: TestCloudKitServer.SignedInUser
        do {
            ada = try await server.signedInUser("ada@example.com")
            bob = try await server.signedInUser("bob@example.com")
            _ = try await server.admin().setDisabled(true, forUserMatching: "ada@example.com")
            _ = try await Self.stratus(["export", Self.container, "--output", exported.path], dataDirectory: server.directory.url.path)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        let lines = String(decoding: try Data(contentsOf: exported.appendingPathComponent("users.jsonl")), as: UTF8.self).split(separator: "\n")
        #expect(lines.filter { $0.contains("disabledAt") }.map { $0.contains("ada@example.com") } == [true], "\(lines)")

        var targets: [[String]] = [["--data-dir", scratch.path("sqlite")]]
        let postgres = PostgresTestDatabase.isEnabled ? try PostgresScratchDatabase.create() : nil
        defer { postgres?.drop() }
        if let postgres { targets.append(["--data-dir", scratch.path("postgres-assets"), "--database", postgres.url]) }
        for target in targets {
            let dataDirectory = target[1]
            let options = Array(target.dropFirst(2))
            _ = try await Self.stratus(["import", exported.path] + options, dataDirectory: dataDirectory)
            let token = try await WebServeProcess.stratus(["user", "token", "ada@example.com", Self.container] + options, dataDirectory: dataDirectory)
            #expect(token.status != 0 && token.output.isEmpty, "no session opens for a disabled account: \(token.output)")
            try await WebServeProcess.with(target) { served in
                let refused = try await served.signIn(ada)
                #expect(refused.status == 403, "\(target): \(refused.head)")
                let refusal = String(decoding: refused.body, as: UTF8.self)
                #expect(refusal.contains("disabled") && !refusal.contains("ckWebAuthToken"), "\(refusal)")
                let admitted = try await served.signIn(bob)
                #expect(admitted.status == 200, "\(target): \(admitted.head)")
                #expect(String(decoding: admitted.body, as: UTF8.self).contains("ckWebAuthToken"))
            }
        }
    }

    /// The last store, served: the owner's old API token opens it, the records come back with
    /// their change tags, an update with a change tag from the first server saves, the asset
    /// downloads byte for byte, and the reader still sees the shared zone.
    static func checkServed(_ source: Source, dataDirectory: String) async throws {
        let tokenA = try await stratus(["user", "token", "owner@example.com", container], dataDirectory: dataDirectory).output
        let tokenB = try await stratus(["user", "token", "reader@example.com", container], dataDirectory: dataDirectory).output
        let a = [("ckAPIToken", source.owner.apiToken), ("ckWebAuthToken", tokenA.trimmingCharacters(in: .whitespacesAndNewlines))]
        let b = [("ckAPIToken", source.reader.apiToken), ("ckWebAuthToken", tokenB.trimmingCharacters(in: .whitespacesAndNewlines))]
        try await WebServeProcess.with(["--data-dir", dataDirectory]) { server in
            let lookup = try await server.json(lookupBody(), query: a)
            #expect(lookup.withoutDownloadURLs == source.lookup.withoutDownloadURLs, "the records must come back as they were: \(lookup)")
            let update =
                #"{"zoneID":{"zoneName":"Projects"},"operations":[{"operationType":"update","record":{"recordName":"t1","recordType":"Note","recordChangeTag":"\#(source.tags["t1"] ?? "")","fields":{"title":{"value":"after the move"}}}}]}"#
            let updated = try await server.json(update, operation: "records/modify", query: a)
            let newTag = updated["records"]?[0]?["recordChangeTag"]?.stringValue
            #expect(newTag != nil && !source.tags.values.contains(newTag ?? ""), "\(updated)")
            let url = try #require(lookup["records"]?.arrayValue?.compactMap { $0["fields"]?["image"]?["value"]?["downloadURL"]?.stringValue }.first)
            let (bytes, _) = try await URLSession.shared.data(from: try #require(URL(string: url.replacingOccurrences(of: "${f}", with: "photo.bin"))))
            #expect(bytes == photoBytes)
            let shared = try await server.json("{}", operation: "zones/list", database: "shared", query: b)
            #expect(shared["zones"]?[0]?["zoneID"]?["zoneName"]?.stringValue == "Projects", "\(shared)")
            let subscriptions = try await server.json("{}", operation: "subscriptions/list", query: a)
            #expect(subscriptions["subscriptions"]?[0]?["subscriptionID"]?.stringValue == "projects", "\(subscriptions)")
        }
    }
}

extension WebServeProcess {
    /// Signs `user` in with the sign-in endpoint's JSON answer, as an app would.
    func signIn(_ user: TestCloudKitServer.SignedInUser) async throws -> RawHTTPConnection.Reply {
        let body = TestCloudKitServer.formBody([("ckAPIToken", user.apiToken), ("email", user.account.emailAddress), ("password", user.password)])
        let request =
            "POST /signin HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/x-www-form-urlencoded\r\nAccept: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return try await exchange(request + String(decoding: body, as: UTF8.self))
    }

    /// POSTs to a database operation of the export tests' container and parses the answer.
    func json(
        _ body: String, operation: String = "records/lookup", database: String = "private", query: [(String, String)]
    ) async throws -> JSONValue {
        let parameters = query.map { "\($0.0)=\(TestCloudKitServer.percentEncoded($0.1))" }.joined(separator: "&")
        let path = TestCloudKitServer.path(operation, database: database) + "?" + parameters
        let request =
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        let reply = try await exchange(request)
        return (try? JSONValue(parsing: reply.body)) ?? .null
    }
}

extension JSONValue {
    /// The value with every `downloadURL` removed (they name the server and expire).
    var withoutDownloadURLs: JSONValue {
        switch self {
        case .object(let members):
            return .object(members.filter { $0.key != "downloadURL" }.mapValues(\.withoutDownloadURLs))
        case .array(let items):
            return .array(items.map(\.withoutDownloadURLs))
        default:
            return self
        }
    }
}
