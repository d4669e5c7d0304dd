import Foundation
import StratusClient
import StratusClientCommands
import StratusServer
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// `stratus kv` (issue 22, #12 and the local store): a refused value fails the command, values persist in a
/// local store between runs (offline sets upload later), and a value can come from a file or standard input.
@Suite(.serialized) struct KeyValueCommandsTests {
    @Test func keysTheServerWouldRefuseFailTheCommand() async throws {
        try await withServer { _, environment, store in
            for key in ["", "a\tb", "line\nbreak"] {
                await #expect(throws: (any Error).self, "key \(key.debugDescription)") {
                    _ = try await run(["kv", "set", key, "x", "--store", store], environment)
                }
            }
            let listed = try await run(["kv", "list", "--store", store], environment)
            #expect(listed.isEmpty)
        }
    }

    /// Two devices race for the 1,024th key: the server refuses this one, and the command says so.
    @Test func aSetTheServerRefusesFailsTheCommand() async throws {
        try await withServer { server, environment, store in
            let database = try fixtureContainer(server, environment).privateCloudDatabase
            try await database.save(RecordZone(zoneName: "StratusKeyValueStore"))
            let keys = (0..<1_023).map { key -> StratusClient.Record in
                var record = StratusClient.Record(
                    recordType: "KeyValue", recordID: RecordID(recordName: "k\(key)", zoneID: ZoneID(zoneName: "StratusKeyValueStore")))
                record["value"] = Data(#"{"s":"x"}"#.utf8)
                return record
            }
            _ = try await database.modifyRecords(saving: keys, deleting: [], savePolicy: .allKeys, atomically: false)
            let racer = RacingTransport {
                // Another device takes the last free key between this command's fetch and its upload.
                var other = StratusClient.Record(
                    recordType: "KeyValue", recordID: RecordID(recordName: "other", zoneID: ZoneID(zoneName: "StratusKeyValueStore")))
                other["value"] = Data(#"{"s":"y"}"#.utf8)
                _ = try await database.modifyRecords(saving: [other], deleting: [], savePolicy: .allKeys, atomically: false)
            }
            await #expect {
                _ = try await run(["kv", "set", "mine", "z", "--store", store], environment, transport: racer)
            } throws: { error in
                "\(error)".contains("refused 'mine'")
            }
            #expect(try await run(["kv", "get", "other", "--store", store], environment) == [#""y""#])
            await #expect(throws: (any Error).self) { _ = try await run(["kv", "get", "mine", "--store", store], environment) }
        }
    }

    @Test func aLocalStoreKeepsOfflineSetsUntilTheNextSync() async throws {
        try await withServer { _, environment, store in
            var offline = environment
            offline["STRATUS_SERVER"] = "http://127.0.0.1:9"  // nothing listens there
            let saved = try await run(["kv", "set", "theme", "dark", "--store", store], offline)
            #expect(saved.contains { $0.contains("theme") && $0.contains("not uploaded") })
            #expect(try await run(["kv", "get", "theme", "--store", store], offline) == [#""dark""#])
            _ = try await run(["kv", "sync", "--store", store], environment)
            let elsewhere = store + ".other"
            #expect(try await run(["kv", "get", "theme", "--store", elsewhere], environment) == [#""dark""#])

            // Without --store, each device keeps one store per server and container, under XDG_DATA_HOME.
            var device = offline
            device["XDG_DATA_HOME"] = URL(fileURLWithPath: store).deletingLastPathComponent().appendingPathComponent("xdg").path
            _ = try await run(["kv", "set", "n", "1", "--type", "int"], device)
            #expect(try await run(["kv", "get", "n"], device) == ["1"])
        }
    }

    @Test func aValueCanComeFromAFileOrStandardInput() async throws {
        try await withServer { _, environment, store in
            let text = String(repeating: "0123456789abcdef", count: 12_000)  // 192 KB, more than a command line holds
            let file = store + ".value"
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            _ = try await run(["kv", "set", "big", "--value-file", file, "--store", store], environment)
            #expect(try await run(["kv", "get", "big", "--store", store], environment) == ["\"\(text)\""])

            let stratus = try StratusChildProcess.executable().path
            let piped = try await SpawnedCommand.run(
                "/bin/sh", ["-c", "exec \"$0\" kv set piped --value-file - --store \"$1\" < \"$2\"", stratus, store + ".piped", file],
                environment: environment)
            #expect(piped.status == 0, "\(piped.errorOutput)")
            #expect(try await run(["kv", "get", "piped", "--store", store], environment) == ["\"\(text)\""])
        }
    }

    private func withServer(_ body: (TestCloudKitServer, [String: String], String) async throws -> Void) async throws {
        let server = try await TestCloudKitServer.startAuthenticated()
        let directory = try TemporaryDirectory(prefix: "kv-cli")
        defer { directory.remove() }
        try await stoppingAfterUse(server, stop: { await $0.stop() }) { server in
            let user = try await server.signedInUser("kv-cli@example.com")
            let environment = [
                "STRATUS_SERVER": server.http.url("").absoluteString, "STRATUS_CONTAINER": TestCloudKitServer.container,
                "STRATUS_API_TOKEN": user.apiToken, "STRATUS_WEB_AUTH_TOKEN": user.webAuthToken,
            ]
            try await body(server, environment, directory.path("kv.sqlite"))
        }
    }

    private func fixtureContainer(_ server: TestCloudKitServer, _ environment: [String: String]) throws -> Container {
        try ClientOptions(arguments: [], environment: environment).container()
    }

    private func run(_ words: [String], _ environment: [String: String], transport: (any HTTPTransport)? = nil) async throws -> [String] {
        let lines = Mutex<[String]>([])
        try await ClientCommands.run(
            words[0], arguments: Array(words.dropFirst()), environment: environment,
            output: ClientOutput { line in lines.withLock { $0.append(line) } }, transport: transport)
        return lines.withLock { $0 }
    }
}

/// Runs `race` once, just before the first `records/modify` of the key-value zone goes out.
final class RacingTransport: HTTPTransport {
    private let inner = DefaultTransport.make()
    private let race: @Sendable () async throws -> Void
    private let done = Mutex(false)

    init(_ race: @escaping @Sendable () async throws -> Void) { self.race = race }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        if request.url.path.hasSuffix("records/modify"), String(decoding: request.body, as: UTF8.self).contains("StratusKeyValueStore"),
            done.withLock({ state in
                defer { state = true }
                return !state
            })
        {
            try await race()
        }
        return try await inner.send(request)
    }
}
