import Foundation
import StratusCrypto
import StratusServer
import StratusServerSQLite
import StratusTesting
import StratusWire
import Testing

/// `stratus import --from`: a second live Stratus on loopback is the source; the copy goes into
/// a fresh data directory, through the SDK, and survives `kill -9` (issue 18).
@Suite struct RemoteImportTests {
    static let container = TestCloudKitServer.container
    static let assetBytes = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })

    /// Creates `count` notes in `zone` (200 per request), titled by name.
    static func createNotes(
        _ server: TestCloudKitServer, _ names: [String], zone: String?, database: String = "private", query: [(String, String)]
    ) async throws {
        for chunk in stride(from: 0, to: names.count, by: 200).map({ Array(names[$0..<min($0 + 200, names.count)]) }) {
            let operations = chunk.map {
                #"{"operationType":"create","record":{"recordName":"\#($0)","recordType":"Note","fields":{"title":{"value":"title of \#($0)"}}}}"#
            }
            let reply = try await server.exchange(
                "records/modify", #"{\#(Body.zone(zone))"operations":[\#(operations.joined(separator: ","))]}"#, database: database, query: query)
            #expect(reply.status == 200 && !reply.text.contains("serverErrorCode"), "\(reply.text.prefix(500))")
        }
    }

    /// The live records of a database of a data directory, by zone then name: the title or the asset's size.
    static func localRecords(_ dataDirectory: String, scope: DatabaseScope, owner: String) async throws -> [String: String] {
        let store = try await SQLiteRecordStore.open(path: dataDirectory + "/stratus.sqlite")
        defer { Task { try? await store.close() } }
        let database = DatabaseKey(container: container, environment: .development, scope: scope, owner: owner)
        return try await store.read { tx in
            var found: [String: String] = [:]
            for zone in try tx.zones(in: database) {
                for record in try tx.recordChanges(inZone: zone.rowID, after: 0, limit: 100_000, recordTypes: nil) where !record.isDeleted {
                    let value: String
                    switch record.fields["title"] ?? record.fields["image"] {
                    case .string(let title): value = title
                    case .asset(let asset): value = "asset of \(asset.size ?? -1) bytes"
                    default: value = "?"
                    }
                    found["\(zone.zoneName)/\(record.recordName)"] = value
                }
            }
            return found
        }
    }

    static func stratus(_ arguments: [String], _ dataDirectory: String) async throws -> SpawnedCommand.Result {
        try await WebServeProcess.stratus(arguments, dataDirectory: dataDirectory)
    }

    @Test func aUsersPrivateDatabaseAndThePublicDatabaseAreCopiedAndCopiedAgainIncrementally() async throws {
        let scratch = try TemporaryDirectory(prefix: "stratus-import-from")
        defer { scratch.remove() }
        let target = scratch.path("target")
        // The wall clock: the copy signs its server-to-server requests with the real time.
        try await withAuthServer(configure: { $0.now = { Int64(Date().timeIntervalSince1970 * 1000) } }) { source in
            let a = try await source.signedInUser("owner@example.com")
            #expect(try await source.exchange("zones/modify", Body.createZone("Projects"), query: a.query).status == 200)
            try await Self.createNotes(source, (0..<25).map { "p\($0)" }, zone: "Projects", query: a.query)
            try await Self.createNotes(source, ["d1", "d2"], zone: nil, query: a.query)
            #expect(try await source.exchange("records/modify", Body.forceDelete("p3", zone: "Projects"), query: a.query).status == 200)
            let asset = try await source.uploadAsset(Self.assetBytes, recordType: "Photo", fieldName: "image", query: a.query)
            let json = String(decoding: try WireCoding.encode(asset), as: UTF8.self)
            let photo =
                #"{"zoneID":{"zoneName":"Projects"},"operations":[{"operationType":"create","record":{"recordName":"photo","recordType":"Photo","fields":{"image":{"value":\#(json)}}}}]}"#
            #expect(try await source.exchange("records/modify", photo, query: a.query).status == 200)
            try await Self.createNotes(source, ["n1", "n2", "n3"], zone: nil, database: "public", query: a.query)
            let key = try P256PrivateKey()
            let registered = try await source.admin().addServerKey(
                container: Self.container, environment: .development, name: "copy", publicKeyPEM: key.publicKey.pemRepresentation)
            let keyFile = scratch.path("key.pem")
            try key.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)

            let owner = try await Self.stratus(["user", "create", "owner@example.com"], target).output.trimmingCharacters(in: .whitespacesAndNewlines)
            let from = ["import", "--from", "http://127.0.0.1:\(source.http.port)", "--container", Self.container]
            let privateCopy = from + ["--api-token", a.apiToken, "--web-auth-token", a.webAuthToken, "--owner", "owner@example.com", "--page-size", "7"]
            let first = try await Self.stratus(privateCopy, target)
            #expect(first.status == 0, "\(first.errorOutput)")
            #expect(first.output.contains("27 record(s) saved"), "\(first.output)")
            var expected: [String: String] = [:]
            for index in 0..<25 where index != 3 { expected["Projects/p\(index)"] = "title of p\(index)" }
            expected["Projects/photo"] = "asset of \(Self.assetBytes.count) bytes"
            expected["_defaultZone/d1"] = "title of d1"
            expected["_defaultZone/d2"] = "title of d2"
            #expect(try await Self.localRecords(target, scope: .private, owner: owner) == expected)
            let assetFiles = try FileManager.default.subpathsOfDirectory(atPath: target + "/assets/objects").filter { $0.contains("/") }
            #expect(assetFiles.count == 1, "\(assetFiles)")
            let stored = try Data(contentsOf: URL(fileURLWithPath: target + "/assets/objects/" + (assetFiles.first ?? "")))
            #expect(stored == Self.assetBytes, "the asset must arrive byte for byte")

            // Run again: only what changed since the noted tokens.
            #expect(try await source.exchange("records/modify", Body.forceDelete("p4", zone: "Projects"), query: a.query).status == 200)
            try await Self.createNotes(source, ["late"], zone: "Projects", query: a.query)
            let again = try await Self.stratus(privateCopy, target)
            #expect(again.output.contains("resuming") && again.output.contains("1 record(s) saved, 1 deleted"), "\(again.output) \(again.errorOutput)")
            expected["Projects/p4"] = nil
            expected["Projects/late"] = "title of late"
            #expect(try await Self.localRecords(target, scope: .private, owner: owner) == expected)

            let publicCopy = from + ["--key-id", registered.keyID, "--key-file", keyFile, "--record-types", "Note"]
            let copied = try await Self.stratus(publicCopy, target)
            #expect(copied.status == 0 && copied.output.contains("3 record(s) saved"), "\(copied.output) \(copied.errorOutput)")
            let publicRecords = try await Self.localRecords(target, scope: .public, owner: DatabaseKey.publicOwner)
            #expect(publicRecords == ["_defaultZone/n1": "title of n1", "_defaultZone/n2": "title of n2", "_defaultZone/n3": "title of n3"])
        }
    }

    /// The importing process (400 records, 2 per page) is killed with SIGKILL part-way; run again, it resumes from its
    /// progress file and the target ends with exactly the source's records.
    @Test func aCopyKilledPartWayResumesAndEndsWithExactlyTheSourcesRecords() async throws {
        let scratch = try TemporaryDirectory(prefix: "stratus-import-kill")
        defer { scratch.remove() }
        let target = scratch.path("target")
        let names = (0..<400).map { "r\($0)" }
        try await withAuthServer { source in
            let a = try await source.signedInUser("owner@example.com")
            #expect(try await source.exchange("zones/modify", Body.createZone("Bulk"), query: a.query).status == 200)
            try await Self.createNotes(source, names, zone: "Bulk", query: a.query)
            let owner = try await Self.stratus(["user", "create", "owner@example.com"], target).output.trimmingCharacters(in: .whitespacesAndNewlines)
            let progress = scratch.path("progress.json")
            let arguments = [
                "import", "--from", "http://127.0.0.1:\(source.http.port)", "--container", Self.container, "--api-token", a.apiToken,
                "--web-auth-token", a.webAuthToken, "--owner", "owner@example.com", "--page-size", "2", "--progress", progress,
                "--data-dir", target,
            ]
            let child = try SpawnedCommand.start(
                try SpawnedCommand.builtExecutable("stratus"), arguments, environment: ProcessInfo.processInfo.environment,
                standardOutput: scratch.path("out"), standardError: scratch.path("err"))
            let started = await eventually(timeout: .seconds(60)) {
                ((try? String(contentsOfFile: progress, encoding: .utf8)) ?? "").contains("Bulk") || !child.isRunning
            }
            child.signal(SIGKILL)
            _ = try? await child.exitStatus()
            #expect(started, "the copy never noted any progress: \((try? String(contentsOfFile: scratch.path("err"), encoding: .utf8)) ?? "")")
            let before = try await Self.localRecords(target, scope: .private, owner: owner).count
            #expect(before < names.count, "the copy must be killed part-way (it had \(before) records)")

            let resumed = try await Self.stratus(Array(arguments.dropLast(2)), target)
            #expect(resumed.status == 0, "\(resumed.errorOutput)")
            #expect(resumed.output.contains("resuming"), "\(resumed.output)")
            let savedAgain = resumed.output.components(separatedBy: " record(s) saved").first?.split(separator: " ").last.flatMap { Int($0) } ?? -1
            #expect(savedAgain >= 0 && savedAgain <= names.count - before + 2, "the second run copies only what the first had not: \(resumed.output)")
            let after = try await Self.localRecords(target, scope: .private, owner: owner)
            #expect(after == Dictionary(uniqueKeysWithValues: names.map { ("Bulk/\($0)", "title of \($0)") }))
        }
    }
}
