import Foundation
import StratusClient
import StratusClientCommands
@testable import StratusServer
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// The CLI's client commands against a real server, output captured.
@Suite struct ClientCommandsTests {
    /// Collected output lines.
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        var output: ClientOutput { ClientOutput { line in self.lines.withLock { $0.append(line) } } }
    }

    /// Runs `body` with a signed-in user's environment (`STRATUS_*`).
    private func withServer(_ body: (TestCloudKitServer, [String: String]) async throws -> Void) async throws {
        let server = try await TestCloudKitServer.startAuthenticated()
        do {
            let user = try await server.signedInUser("cli@example.com")
            let environment = [
                "STRATUS_SERVER": server.http.url("").absoluteString, "STRATUS_CONTAINER": TestCloudKitServer.container,
                "STRATUS_API_TOKEN": user.apiToken, "STRATUS_WEB_AUTH_TOKEN": user.webAuthToken,
            ]
            try await body(server, environment)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    private func run(_ words: [String], _ environment: [String: String]) async throws -> [String] {
        let lines = Lines()
        try await ClientCommands.run(words[0], arguments: Array(words.dropFirst()), environment: environment, output: lines.output)
        return lines.all
    }

    @Test func recordsSaveGetQueryDelete() async throws {
        try await withServer { _, environment in
            let saved = try await run(["records", "save", "Note", "n1", "title=Groceries", "rank:int=3", "tags:strings=a,b"], environment)
            #expect(saved.count == 1)
            #expect(saved[0].contains(#""recordName":"n1""#))
            _ = try await run(["records", "save", "Note", "n2", "title=Other", "rank:int=5"], environment)
            let got = try await run(["records", "get", "n1"], environment)
            #expect(got[0].contains("Groceries"))
            #expect(got[0].contains(#""type":"INT64""#))
            let all = try await run(["records", "query", "Note", "--sort", "rank"], environment)
            #expect(all.count == 2)
            #expect(all.first?.contains("n1") == true)
            let filtered = try await run(["records", "query", "Note", "--filter", "rank=5"], environment)
            #expect(filtered.count == 1)
            #expect(filtered.first?.contains("n2") == true)
            #expect(try await run(["records", "delete", "n1"], environment) == ["deleted n1"])
            await #expect(throws: StratusError.self) { _ = try await run(["records", "get", "n1"], environment) }
        }
    }

    @Test func zonesAndChanges() async throws {
        try await withServer { _, environment in
            #expect(try await run(["zones", "create", "Inbox"], environment) == ["created Inbox"])
            _ = try await run(["records", "save", "Note", "z1", "title=x", "--zone", "Inbox"], environment)
            #expect(try await run(["zones", "list"], environment) == ["Inbox", "_defaultZone"])
            let changes = try await run(["changes", "--zone", "Inbox"], environment)
            #expect(changes.contains { $0.hasPrefix("changed ") && $0.contains("z1") })
            let token = try #require(changes.last?.split(separator: " ").last.map(String.init))
            let none = try await run(["changes", "--zone", "Inbox", "--token", token], environment)
            #expect(none.count == 1)
            #expect(none.first?.hasPrefix("token ") == true)
            let database = try await run(["changes"], environment)
            #expect(database.contains("changed zone Inbox"))
            #expect(database.last?.hasPrefix("token ") == true)
        }
    }

    @Test func keyValueSetGetList() async throws {
        try await withServer { _, environment in
            #expect(try await run(["kv", "set", "theme", "dark"], environment) == ["set theme"])
            _ = try await run(["kv", "set", "size", "14", "--type", "int"], environment)
            _ = try await run(["kv", "set", "prefs", #"{"a":[1,true,"x"]}"#, "--type", "json"], environment)
            #expect(try await run(["kv", "get", "theme"], environment) == [#""dark""#])
            #expect(try await run(["kv", "get", "size"], environment) == ["14"])
            #expect(try await run(["kv", "list"], environment) == ["prefs\t{\"a\":[1,true,\"x\"]}", "size\t14", "theme\t\"dark\""])
            _ = try await run(["kv", "remove", "theme"], environment)
            await #expect(throws: ClientCommandError.self) { _ = try await run(["kv", "get", "theme"], environment) }
        }
    }

    @Test func watchPrintsNotifications() async throws {
        try await withServer { server, environment in
            let lines = Lines()
            let watching = Task {
                try await ClientCommands.run(
                    "watch", arguments: ["--subscribe", "query:Note", "--count", "1"], environment: environment, output: lines.output)
            }
            // Save once the watcher is listening: its token registered and its long-poll parked
            // on the server (waits for that event; the deadlines only guard against a hang).
            let courier = server.service.courier
            let parked = await eventually(timeout: .seconds(120)) { courier.waiters.count == 1 }
            #expect(parked, "the watcher never parked a poll")
            _ = try await run(["records", "save", "Note", "w0", "title=x"], environment)
            let printed = await eventually(timeout: .seconds(120)) { !lines.all.isEmpty }
            if !printed { watching.cancel() }  // no push: fail below, never hang the suite
            _ = try? await watching.value
            #expect(lines.all.first?.hasPrefix("query subscription=stratus-watch-query-Note database=private") == true)
            #expect(lines.all.first?.contains("reason=recordCreated") == true)
        }
    }

    @Test func usageErrors() async throws {
        await #expect(throws: ClientCommandError.self) {
            try await ClientCommands.run("records", arguments: ["get", "x"], environment: [:], output: ClientOutput { _ in })
        }
        await #expect(throws: ClientCommandError.self) {
            try await ClientCommands.run(
                "records", arguments: ["save", "Note", "n", "rank:int=abc", "--container", "c"], environment: [:], output: ClientOutput { _ in })
        }
        await #expect(throws: ClientCommandError.self) {
            try await ClientCommands.run(
                "zones", arguments: ["list", "--container", "c", "--database", "nope"], environment: [:], output: ClientOutput { _ in })
        }
    }
}
