import Foundation
import StratusServer
import StratusTesting
import Testing

/// The console's tables, written once in StratusServerSQL, on every back end.
@Suite struct ConsoleStoreTests {
    private func withStore(_ backend: RecordStoreBackend, _ body: (any ConsoleStore) async throws -> Void) async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-console-store")
        let store = try await backend.makeStore(in: directory)
        defer { directory.remove() }
        do {
            try await body(try #require(store as? any ConsoleStore))
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    @Test(arguments: RecordStoreBackend.allCases)
    func anAdministratorsAddressIsUniqueAndRemovingThemEndsTheirSessions(_ backend: RecordStoreBackend) async throws {
        try await withStore(backend) { store in
            let ada = ConsoleAdministrator(id: "a1", emailAddress: "ada@example.com", passwordHash: "$argon2id$x", createdAt: 1)
            #expect(try await store.writeConsole { try $0.insertAdministrator(ada) })
            let twin = ConsoleAdministrator(id: "a2", emailAddress: "ada@example.com", passwordHash: "$argon2id$y", createdAt: 2)
            #expect(try await store.writeConsole { try $0.insertAdministrator(twin) } == false)
            let session = ConsoleSession(tokenHash: "h1", administratorID: "a1", csrfToken: "c1", createdAt: 1, expiresAt: 100)
            try await store.writeConsole { try $0.insertConsoleSession(session) }
            #expect(try await store.readConsole { try $0.consoleSession(tokenHash: "h1") } == session)
            #expect(try await store.readConsole { try $0.administrators() }.map(\.id) == ["a1"])
            #expect(try await store.writeConsole { try $0.deleteAdministrator(id: "a1") })
            #expect(try await store.readConsole { try $0.consoleSession(tokenHash: "h1") } == nil)
            #expect(try await store.readConsole { try $0.administrator(emailAddress: "ada@example.com") } == nil)
        }
    }

    @Test(arguments: RecordStoreBackend.allCases)
    func aSignedOutSessionStaysRevokedAndTheAuditLogReadsNewestFirstInPages(_ backend: RecordStoreBackend) async throws {
        try await withStore(backend) { store in
            let session = ConsoleSession(tokenHash: "h2", administratorID: "a1", csrfToken: "c2", createdAt: 1, expiresAt: 100)
            try await store.writeConsole { try $0.insertConsoleSession(session) }
            #expect(try await store.writeConsole { try $0.revokeConsoleSession(tokenHash: "h2", at: 5) })
            #expect(try await store.writeConsole { try $0.revokeConsoleSession(tokenHash: "h2", at: 6) } == false)
            #expect(try await store.readConsole { try $0.consoleSession(tokenHash: "h2") }?.revokedAt == 5)
            var sequences: [Int64] = []
            for index in 0..<5 {
                let entry = ConsoleAuditEntry(at: Int64(index), administrator: "ada@example.com", action: "a\(index)", target: "t", detail: "d")
                sequences.append(try await store.writeConsole { try $0.appendAudit(entry) })
            }
            #expect(sequences == sequences.sorted() && Set(sequences).count == 5)
            let first = try await store.readConsole { try $0.auditEntries(limit: 3, before: nil) }
            #expect(first.map(\.action) == ["a4", "a3", "a2"])
            let rest = try await store.readConsole { try $0.auditEntries(limit: 3, before: first.last?.sequence) }
            #expect(rest.map(\.action) == ["a1", "a0"])
        }
    }
}
