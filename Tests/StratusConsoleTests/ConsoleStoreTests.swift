import Foundation
import StratusServer
import StratusTesting
import Testing

/// The console's tables, and the account primitives its Users page adds, written once in StratusServerSQL, on every back end.
@Suite struct ConsoleStoreTests {
    private func withStore(_ backend: RecordStoreBackend, _ body: (any ConsoleStore) async throws -> Void) async throws {
        try await backend.withStore(prefix: "stratus-console-store") { store in try await body(try #require(store as? any ConsoleStore)) }
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

    @Test(arguments: RecordStoreBackend.allCases)
    func anAuditEntryIsWrittenStartedAndConcludedOnce(_ backend: RecordStoreBackend) async throws {
        try await withStore(backend) { store in
            let entry = ConsoleAuditEntry(at: 1, administrator: "ada@example.com", action: "tokens.revoke", target: "token x", detail: "", outcome: .started)
            let sequence = try await store.writeConsole { try $0.appendAudit(entry) }
            #expect(try await store.readConsole { try $0.auditEntries(limit: 1, before: nil) }.first?.outcome == .started)
            #expect(try await store.writeConsole { try $0.concludeAudit(sequence: sequence, outcome: .done, target: "c/development", detail: "ab… ci") })
            #expect(
                try await store.writeConsole { try $0.concludeAudit(sequence: sequence, outcome: .failed, target: "other", detail: "late") } == false,
                "concluded once")
            #expect(try await store.writeConsole { try $0.concludeAudit(sequence: sequence + 1, outcome: .done, target: "t", detail: "d") } == false)
            let read = try #require(try await store.readConsole { try $0.auditEntries(limit: 1, before: nil) }.first)
            #expect(read.outcome == .done && read.target == "c/development" && read.detail == "ab… ci" && read.action == "tokens.revoke")
        }
    }

    @Test(arguments: RecordStoreBackend.allCases)
    func aDisabledAccountIsReadWithItsSessionsAndAnUpdateNeverEnablesIt(_ backend: RecordStoreBackend) async throws {
        try await withStore(backend) { store in
            let accounts = try #require(store as? any AccountStore)
            let ada = UserAccount(userRecordName: "_ada", emailAddress: "ada@example.com", createdAt: 1)
            let phone = WebAuthSession(sessionID: "s1", userRecordName: "_ada", container: "c", keepSignedIn: false, createdAt: 1, newestTokenUsedAt: 1)
            let laptop = WebAuthSession(sessionID: "s2", userRecordName: "_ada", container: "c", keepSignedIn: true, createdAt: 2, newestTokenUsedAt: 2)
            try await accounts.writeAccounts { tx in
                _ = try tx.insertUser(ada)
                try tx.insertSession(phone)
                try tx.insertSession(laptop)
            }
            #expect(try await accounts.readAccounts { try $0.sessions(ofUser: "_ada") }.map(\.sessionID) == ["s2", "s1"], "newest first")
            #expect(try await accounts.readAccounts { try $0.sessions(ofUser: "_bob") }.isEmpty)
            #expect(try await accounts.writeAccounts { try $0.setUserDisabled(recordName: "_ada", at: 7) })
            #expect(try await accounts.writeAccounts { try $0.setUserDisabled(recordName: "_nobody", at: 7) } == false)
            #expect(try await accounts.readAccounts { try $0.user(recordName: "_ada") }?.disabledAt == 7)
            #expect(try await accounts.readAccounts { try $0.session(id: "s1") }?.accountDisabledAt == 7, "read with the session, in one query")
            // A stale copy written back (a password rehash, discoverability) keeps the account disabled.
            var copy = ada
            copy.isDiscoverable = true
            let stale = copy
            try await accounts.writeAccounts { try $0.updateUser(stale) }
            #expect(try await accounts.readAccounts { try $0.user(recordName: "_ada") }?.disabledAt == 7)
            #expect(try await accounts.writeAccounts { try $0.setUserDisabled(recordName: "_ada", at: nil) })
            #expect(try await accounts.readAccounts { try $0.session(id: "s2") }?.accountDisabledAt == nil)
        }
    }

    @Test(arguments: RecordStoreBackend.allCases)
    func expiredConsoleSessionsAreSweptAndLiveOnesKept(_ backend: RecordStoreBackend) async throws {
        try await withStore(backend) { console in
            let expired = ConsoleSession(tokenHash: "old", administratorID: "a1", csrfToken: "c1", createdAt: 1, expiresAt: 100)
            let live = ConsoleSession(tokenHash: "new", administratorID: "a1", csrfToken: "c2", createdAt: 50, expiresAt: 1000)
            try await console.writeConsole { tx in
                try tx.insertConsoleSession(expired)
                try tx.insertConsoleSession(live)
            }
            #expect(try await console.writeConsole { try $0.deleteExpiredConsoleSessions(at: 100) } == 1)
            #expect(try await console.readConsole { try $0.consoleSession(tokenHash: "old") } == nil)
            #expect(try await console.readConsole { try $0.consoleSession(tokenHash: "new") } == live)
        }
    }
}
