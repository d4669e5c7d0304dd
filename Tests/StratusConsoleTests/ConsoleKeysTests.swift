import Foundation
import StratusCrypto
import StratusServer
import StratusTesting
import Testing

/// Server-to-server keys added from the console: a pasted public key, its key ID shown, requests
/// signed with it accepted until it is revoked — through ``AccountAdministration``.
@Suite struct ConsoleKeysTests {
    static let container = TestCloudKitServer.container

    private func signedZonesList(_ server: ConsoleTestServer, keyID: String, key: P256PrivateKey) async throws -> Int {
        let path = TestCloudKitServer.path("zones/list", database: "public")
        let date = Date(timeIntervalSince1970: TimeInterval(server.cloudKit.now) / 1000)
        let headers = try ServerToServerSignature.headers(keyID: keyID, date: date, body: Data(), path: path, key: key)
        return try await server.cloudKit.exchange("zones/list", method: "GET", database: "public", headers: headers).status
    }

    @Test func aKeyAddedInTheConsoleSignsRequestsUntilItIsRevoked() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let session = try await server.signIn()
        let key = try P256PrivateKey()
        let body = ConsoleTestServer.json([
            "container": Self.container, "environment": "development", "name": "backend", "publicKeyPEM": key.publicKey.pemRepresentation,
        ])
        let added = try await server.send("POST", "/console/api/keys", body: body, cookie: session.cookie, csrf: session.csrf)
        #expect(added.status == 200, "\(added.text)")
        let keyID = try #require(try added.json()["keyID"] as? String)
        #expect(keyID.count == 64)
        #expect(try await server.send("GET", "/console/api/keys", cookie: session.cookie).text.contains(keyID))
        #expect(try await signedZonesList(server, keyID: keyID, key: key) == 200)
        let revoked = try await server.send("POST", "/console/api/keys/\(keyID)/revoke", body: "{}", cookie: session.cookie, csrf: session.csrf)
        #expect(revoked.status == 200)
        #expect(try await signedZonesList(server, keyID: keyID, key: key) == 401)
        let audit = try await server.send("GET", "/console/api/audit", cookie: session.cookie)
        #expect(audit.text.contains("keys.add") && audit.text.contains("keys.revoke"))
    }

    @Test func aKeyThatIsNotAP256PublicKeyOrForAnUnknownContainerIsRefusedAndAddsNothing() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let session = try await server.signIn()
        let send = { (container: String, environment: String, pem: String) in
            let body = ConsoleTestServer.json(["container": container, "environment": environment, "name": "x", "publicKeyPEM": pem])
            return try await server.send("POST", "/console/api/keys", body: body, cookie: session.cookie, csrf: session.csrf)
        }
        let garbage = try await send(Self.container, "development", "-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----")
        #expect(garbage.status == 400 && garbage.text.contains("P-256"))
        let pem = try P256PrivateKey().publicKey.pemRepresentation
        #expect(try await send("iCloud.nope", "development", pem).status == 404)
        #expect(try await send(Self.container, "staging", pem).status == 400)
        let forged = try await server.send(
            "POST", "/console/api/keys",
            body: ConsoleTestServer.json(["container": Self.container, "environment": "development", "name": "x", "publicKeyPEM": pem]),
            cookie: session.cookie)
        #expect(forged.status == 403)
        #expect(try await server.cloudKit.admin().serverKeys(container: nil).isEmpty)
    }
}
