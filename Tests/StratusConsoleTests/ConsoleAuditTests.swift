import Foundation
import StratusServer
@testable import StratusServerSQLite
import StratusSQLite
import StratusTesting
import Testing

/// The audit log is written before each change and concluded after it, so no change made through
/// the console is missing from it. Faults are injected into the real SQLite file with triggers.
@Suite struct ConsoleAuditTests {
    private func newestEntry(_ server: ConsoleTestServer) async throws -> ConsoleAuditEntry {
        try #require(try await server.store.readConsole { try $0.auditEntries(limit: 1, before: nil) }.first)
    }

    private func createToken(_ server: ConsoleTestServer, _ session: ConsoleTestServer.Session) async throws -> ConsoleTestServer.Reply {
        let body = ConsoleTestServer.json(["container": TestCloudKitServer.container, "environment": "development", "name": "ci"])
        return try await server.send("POST", "/console/api/tokens", body: body, cookie: session.cookie, csrf: session.csrf)
    }

    private func addTrigger(_ server: ConsoleTestServer, _ sql: String) async throws {
        let store = try #require(server.cloudKit.store as? SQLiteRecordStore)
        try await store.pool.write { db in try db.execute(sql: sql) }
    }

    @Test func aChangeIsLoggedAsDoneWithWhatItDid() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let session = try await server.signIn()
        let created = try await createToken(server, session)
        #expect(created.status == 200, "\(created.text)")
        let entry = try await newestEntry(server)
        let prefix = try #require(try created.json()["prefix"] as? String)
        #expect(entry.action == "tokens.create" && entry.outcome == .done)
        #expect(entry.detail == "\(prefix)… ci", "concluded with the created token's prefix")
    }

    @Test func aRefusedChangeIsLoggedAsFailedWithItsReason() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let session = try await server.signIn()
        let revoked = try await server.send("POST", "/console/api/tokens/abcdefgh/revoke", body: "{}", cookie: session.cookie, csrf: session.csrf)
        #expect(revoked.status == 404)
        let entry = try await newestEntry(server)
        #expect(entry.action == "tokens.revoke" && entry.outcome == .failed && entry.target == "token abcdefgh…")
        #expect(entry.detail.contains("NOT_FOUND") || entry.detail.lowercased().contains("no "), "the reason is kept: \(entry.detail)")
    }

    @Test func aChangeWhoseEntryCannotBeWrittenIsNotMade() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let session = try await server.signIn()
        try await addTrigger(
            server, "CREATE TRIGGER refuse_audit BEFORE INSERT ON console_audit WHEN NEW.outcome = 'started' BEGIN SELECT RAISE(ABORT, 'disk says no'); END")
        let created = try await createToken(server, session)
        #expect(created.status == 503 && created.text.contains("TRY_AGAIN_LATER") && created.text.contains("audit log"), "\(created.text)")
        #expect(try await server.cloudKit.admin().apiTokens(container: nil).isEmpty, "no token without its audit entry")
    }

    @Test func aChangeWhoseConclusionCannotBeWrittenIsMadeAndItsEntryStaysStarted() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let session = try await server.signIn()
        try await addTrigger(server, "CREATE TRIGGER refuse_conclusion BEFORE UPDATE ON console_audit BEGIN SELECT RAISE(ABORT, 'disk says no'); END")
        let created = try await createToken(server, session)
        #expect(created.status == 200, "the change was made: \(created.text)")
        #expect(try await server.cloudKit.admin().apiTokens(container: nil).count == 1)
        let entry = try await newestEntry(server)
        #expect(entry.action == "tokens.create" && entry.outcome == .started, "an operator sees a change that may have been made")
    }
}
