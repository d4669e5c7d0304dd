import Foundation
import StratusCrypto
import StratusServerCrypto
import StratusServer
import StratusServerSQLite
import StratusTesting
import StratusWire
import Testing

/// The logic behind `stratus user|token|key`, on a real SQLite store.
@Suite struct AccountAdministrationTests {
    static func withAdministration(_ body: (AccountAdministration, SQLiteRecordStore) async throws -> Void) async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-accounts")
        let store = try await SQLiteRecordStore.open(path: directory.path("stratus.sqlite"))
        var configuration = ServiceConfiguration(tokenSecret: Data(repeating: 3, count: 32))
        configuration.authentication.passwordHashing = .minimum
        let admin = AccountAdministration(accounts: store, configuration: configuration)
        do {
            try await body(admin, store)
        } catch {
            try await store.close()
            directory.remove()
            throw error
        }
        try await store.close()
        directory.remove()
    }

    @Test func usersHaveRandomRecordNamesUniqueAddressesAndHashedPasswords() async throws {
        try await Self.withAdministration { admin, _ in
            let ada = try await admin.createUser(email: " Ada@Example.COM ", password: "correct horse", discoverable: true)
            #expect(ada.emailAddress == "ada@example.com")
            #expect(ada.userRecordName.hasPrefix("_") && ada.userRecordName.count == 33)
            #expect(ada.passwordHash?.hasPrefix("$argon2id$") == true)
            #expect(ada.passwordHash?.contains("correct horse") == false)
            let scripted = try await admin.createUser(email: "bot@example.com", password: nil)
            #expect(scripted.passwordHash == nil)
            #expect(scripted.userRecordName != ada.userRecordName)

            await #expect(throws: AccountError(.emailAddressTaken, "an account with the e-mail address ada@example.com already exists")) {
                _ = try await admin.createUser(email: "ADA@example.com", password: "another one")
            }
            await #expect { _ = try await admin.createUser(email: "not-an-address", password: "long enough") } throws: {
                ($0 as? AccountError)?.code == .invalidEmailAddress
            }
            await #expect { _ = try await admin.createUser(email: "x@example.com", password: "short") } throws: {
                ($0 as? AccountError)?.code == .passwordTooShort
            }
            #expect(try await admin.users().map(\.emailAddress) == ["ada@example.com", "bot@example.com"])
            #expect(try await admin.user(matching: ada.userRecordName) == ada)
            #expect(try await admin.user(matching: "ADA@example.com") == ada)
        }
    }

    @Test func apiTokensAreStoredAsHashesListedByPrefixAndRevocable() async throws {
        try await Self.withAdministration { admin, store in
            let (token, record) = try await admin.createAPIToken(
                container: "iCloud.a", environment: .development, name: "web", signInCallbackURL: "https://app.example.com/cb",
                allowedOrigins: ["https://app.example.com"])
            #expect(token.count == 64 && token.allSatisfy { "0123456789abcdef".contains($0) })
            #expect(record.prefix == String(token.prefix(8)))
            #expect(record.tokenHash == SHA256.hash(token).hexString)
            let stored = try await store.readAccounts { try $0.apiTokens(container: "iCloud.a") }
            #expect(stored == [record])
            #expect(try await admin.apiTokens(container: "iCloud.b").isEmpty)

            await #expect {
                _ = try await admin.createAPIToken(container: "iCloud.a", environment: .development, name: "x", signInCallbackURL: "javascript:alert(1)")
            } throws: {
                ($0 as? AccountError)?.code == .invalidArgument
            }
            await #expect {
                _ = try await admin.createAPIToken(container: "iCloud.a", environment: .development, name: "x", allowedOrigins: ["https://a.example.com/path"])
            } throws: {
                ($0 as? AccountError)?.code == .invalidArgument
            }
            let revoked = try await admin.revokeAPIToken(record.prefix, container: "iCloud.a")
            #expect(revoked.revokedAt != nil)
            await #expect { _ = try await admin.revokeAPIToken(token) } throws: { ($0 as? AccountError)?.code == .notFound }
        }
    }

    @Test func serverKeysNeedAP256PublicKeyAndCanBeRevoked() async throws {
        try await Self.withAdministration { admin, _ in
            let key = try P256PrivateKey()
            let record = try await admin.addServerKey(
                container: "iCloud.a", environment: .production, name: "backend", publicKeyPEM: key.publicKey.pemRepresentation)
            #expect(record.keyID.count == 64)
            #expect(try P256PublicKey(pemRepresentation: record.publicKeyPEM) == key.publicKey)
            #expect(try await admin.serverKeys(container: nil).map(\.keyID) == [record.keyID])
            await #expect { _ = try await admin.addServerKey(container: "iCloud.a", environment: .production, name: "x", publicKeyPEM: "nope") } throws: {
                ($0 as? AccountError)?.code == .invalidArgument
            }
            #expect(try await admin.revokeServerKey(record.keyID).revokedAt != nil)
            await #expect { _ = try await admin.revokeServerKey(record.keyID) } throws: { ($0 as? AccountError)?.code == .notFound }
        }
    }

    @Test func webAuthTokensForScriptsAreLongOpaqueAndNotStored() async throws {
        try await Self.withAdministration { admin, store in
            let user = try await admin.createUser(email: "bot@example.com", password: nil)
            let token = try await admin.webAuthToken(for: "bot@example.com", container: "iCloud.a")
            #expect(token.count >= 100)
            #expect(token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+/=".contains($0)) })
            let other = try await admin.webAuthToken(for: user.userRecordName, container: "iCloud.a")
            #expect(other != token)
            await #expect { _ = try await admin.webAuthToken(for: "nobody@example.com", container: "iCloud.a") } throws: {
                ($0 as? AccountError)?.code == .notFound
            }
            try await admin.signOut(webAuthToken: token)
            await #expect(throws: AccountError.self) { try await admin.signOut(webAuthToken: "not a token") }
            _ = store
        }
    }

    @Test func credentialGenerationMovesWithEveryKeyAndTokenChangeFromAnyHandleAndOnlyThen() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-generation")
        defer { directory.remove() }
        let store = try await SQLiteRecordStore.open(path: directory.path("stratus.sqlite"))
        let admin = AccountAdministration(accounts: store, configuration: ServiceConfiguration(tokenSecret: Data(repeating: 3, count: 32)))
        let start = try #require(try store.credentialGeneration())
        // Users and sessions leave it alone, so they do not void cached keys and tokens.
        let user = try await admin.createUser(email: "g@example.com", password: nil)
        _ = try await admin.webAuthToken(for: user.userRecordName, container: "iCloud.a")
        #expect(try store.credentialGeneration() == start)
        let (token, _) = try await admin.createAPIToken(container: "iCloud.a", environment: .development, name: "t")
        let withToken = try #require(try store.credentialGeneration())
        #expect(withToken > start)
        let key = try await admin.addServerKey(
            container: "iCloud.a", environment: .development, name: "k", publicKeyPEM: try P256PrivateKey().publicKey.pemRepresentation)
        let added = try #require(try store.credentialGeneration())
        #expect(added > withToken)
        #expect(try store.credentialGeneration() == added)
        // Another handle on the file, as another process: its revocations move this handle's generation.
        let other = try await SQLiteRecordStore.open(path: directory.path("stratus.sqlite"))
        #expect(try await other.writeAccounts { try $0.revokeServerKey(id: key.keyID, at: 5) })
        let keyRevoked = try #require(try store.credentialGeneration())
        #expect(keyRevoked > added)
        #expect(try await other.writeAccounts { try $0.revokeAPIToken(hash: SHA256.hash(token).hexString, at: 6) })
        try await other.close()
        let revoked = try #require(try store.credentialGeneration())
        #expect(revoked > keyRevoked)
        try await store.close()
        #expect(throws: (any Error).self) { try store.credentialGeneration() }
    }
}
