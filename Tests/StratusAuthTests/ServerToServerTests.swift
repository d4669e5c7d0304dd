import Foundation
import StratusClient
import StratusCrypto
import StratusServer
import StratusServerSQLite
import StratusTesting
import StratusWire
import Testing

/// Server-to-server signatures, verified exactly as Apple's CloudKit Web Services Reference: “Server-to-server keys” says; every failure the same opaque 401.
@Suite struct ServerToServerTests {
    /// A registered key and a way to sign requests with it at the server's time.
    struct Signer {
        let server: TestCloudKitServer
        let keyID: String
        let key: P256PrivateKey

        static func register(_ server: TestCloudKitServer, environment: Environment = .development) async throws -> Signer {
            let key = try P256PrivateKey()
            let record = try await server.admin().addServerKey(
                container: TestCloudKitServer.container, environment: environment, name: "backend", publicKeyPEM: key.publicKey.pemRepresentation)
            #expect(record.keyID.count == 64)
            return Signer(server: server, keyID: record.keyID, key: key)
        }

        /// The server's clock as a `Date`, moved by `offset` seconds.
        func date(offset: TimeInterval = 0) -> Date {
            Date(timeIntervalSince1970: TimeInterval(server.now) / 1000 + offset)
        }

        /// Headers signing `body` for `path` (by default exactly as sent) with `key` (by default the registered one).
        func headers(body: Data, path: String, dateOffset: TimeInterval = 0, key: P256PrivateKey? = nil) throws -> [String: String] {
            try ServerToServerSignature.headers(keyID: keyID, date: date(offset: dateOffset), body: body, path: path, key: key ?? self.key)
        }

        func send(
            _ operation: String, method: String = "POST", body: String = "", database: String = "public", signedBody: String? = nil,
            signedPath: String? = nil, dateOffset: TimeInterval = 0, key: P256PrivateKey? = nil, query: [(String, String)] = [],
            edit: (inout [String: String]) -> Void = { _ in }
        ) async throws -> TestCloudKitServer.Reply {
            let path = TestCloudKitServer.path(operation, database: database)
            var headers = try self.headers(
                body: Data((signedBody ?? body).utf8), path: signedPath ?? path, dateOffset: dateOffset, key: key)
            edit(&headers)
            return try await server.exchange(operation, method: method, body: Data(body.utf8), database: database, query: query, headers: headers)
        }
    }

    @Test func validSignaturesAreAcceptedInBothBodyHashFormsAndWithAQueryString() async throws {
        try await withAuthServer { server in
            let signer = try await Signer.register(server)
            let lookup = try await signer.send("records/lookup", body: Body.lookup("nothing"))
            #expect(lookup.status == 200, "\(lookup.text)")
            #expect(lookup.itemCodes() == ["NOT_FOUND"])
            // GET with the empty-string body hash (what Apple's clients send) …
            #expect(try await signer.send("zones/list", method: "GET").status == 200)
            // … and with the hash of zero bytes.
            let path = TestCloudKitServer.path("zones/list", database: "public")
            let date = ServerToServerSignature.dateString(from: signer.date())
            let hashOfNothing = SHA256.hash(Data()).base64
            let signature = try signer.key.signature(for: Data("\(date):\(hashOfNothing):\(path)".utf8)).base64EncodedString()
            let headers = [
                ServerToServerSignature.keyIDHeaderName: signer.keyID, ServerToServerSignature.dateHeaderName: date,
                ServerToServerSignature.signatureHeaderName: signature,
            ]
            #expect(try await server.exchange("zones/list", method: "GET", database: "public", headers: headers).status == 200)
            // The path is signed without the query string the request carries.
            #expect(try await signer.send("zones/list", method: "GET", query: [("ckjsVersion", "2.6.4")]).status == 200)
            // Nine minutes either way is still inside the window.
            #expect(try await signer.send("zones/list", method: "GET", dateOffset: -9 * 60).status == 200)
            #expect(try await signer.send("zones/list", method: "GET", dateOffset: 9 * 60).status == 200)
        }
    }

    @Test func badSignaturesAllFailWithTheSameOpaque401() async throws {
        try await withAuthServer { server in
            let signer = try await Signer.register(server)
            let body = Body.query()
            let otherKey = try P256PrivateKey()
            let apiToken = try await server.makeAPIToken()
            let attempts: [(String, TestCloudKitServer.Reply)] = [
                (
                    "tampered signature",
                    try await signer.send("records/query", body: body) { headers in
                        var signature = Array(headers[ServerToServerSignature.signatureHeaderName] ?? "")
                        signature[12] = signature[12] == "A" ? "B" : "A"
                        headers[ServerToServerSignature.signatureHeaderName] = String(signature)
                    }
                ),
                (
                    "tampered date",
                    try await signer.send("records/query", body: body) { headers in
                        headers[ServerToServerSignature.dateHeaderName] = ServerToServerSignature.dateString(from: signer.date(offset: -1))
                    }
                ),
                ("expired: 11 minutes old", try await signer.send("records/query", body: body, dateOffset: -11 * 60)),
                ("11 minutes in the future", try await signer.send("records/query", body: body, dateOffset: 11 * 60)),
                ("replayed with another body", try await signer.send("records/query", body: Body.query(zoneWide: true), signedBody: body)),
                ("signed by another key", try await signer.send("records/query", body: body, key: otherKey)),
                (
                    "signed for another path",
                    try await signer.send("records/query", body: body, signedPath: TestCloudKitServer.path("records/lookup", database: "public"))
                ),
                (
                    "unknown key ID",
                    try await signer.send("records/query", body: body) { $0[ServerToServerSignature.keyIDHeaderName] = String(repeating: "0", count: 64) }
                ),
                ("missing date", try await signer.send("records/query", body: body) { $0[ServerToServerSignature.dateHeaderName] = nil }),
                ("with an API token too", try await signer.send("records/query", body: body, query: [("ckAPIToken", apiToken)])),
                ("private database", try await signer.send("records/query", body: body, database: "private")),
                ("users endpoint", try await signer.send("users/caller", method: "GET")),
            ]
            let first = attempts[0].1
            for (name, reply) in attempts {
                #expect(reply.status == 401, "\(name): \(reply.status) \(reply.text)")
                #expect(reply.serverErrorCode == "AUTHENTICATION_FAILED", "\(name)")
                #expect(reply.bodyWithoutUUID == first.bodyWithoutUUID, "\(name) leaks a different body: \(reply.text)")
            }
        }
    }

    @Test func revokedKeyFailsOnTheNextRequest() async throws {
        try await withAuthServer { server in
            let signer = try await Signer.register(server)
            #expect(try await signer.send("zones/list", method: "GET").status == 200)
            _ = try await server.admin().revokeServerKey(signer.keyID)
            #expect(try await signer.send("zones/list", method: "GET").status == 401)
        }
    }

    @Test func keyRevokedThroughAnotherStoreHandleFailsOnTheVeryNextRequest() async throws {
        try await withAuthServer { server in
            let signer = try await Signer.register(server)
            // Twice, so the second request is answered from the server's key cache.
            #expect(try await signer.send("zones/list", method: "GET").status == 200)
            #expect(try await signer.send("zones/list", method: "GET").status == 200)
            // What `stratus key revoke` in another process does: its own handle on the file, a
            // plain revocation, nothing this process's AccountAdministration would hear of.
            let other = try await SQLiteRecordStore.open(path: server.directory.path("stratus.sqlite"))
            let revoked = try await other.writeAccounts { try $0.revokeServerKey(id: signer.keyID, at: 1) }
            try await other.close()
            #expect(revoked)
            let refused = try await signer.send("zones/list", method: "GET")
            #expect(refused.status == 401, "\(refused.text)")
            #expect(refused.serverErrorCode == "AUTHENTICATION_FAILED")
        }
    }

    @Test func keyWritesAsItsOwnIdentityAndMayChangeAnyPublicRecord() async throws {
        try await withAuthServer { server in
            let signer = try await Signer.register(server)
            let user = try await server.signedInUser("a@example.com")
            _ = try await server.exchange("records/modify", Body.create("u1"), database: "public", query: user.query)
            let saved = try await signer.send("records/modify", body: Body.create("k1"))
            #expect(saved.itemCodes() == [nil])
            #expect(saved.json["records"]?[0]?["created"]?["userRecordName"]?.stringValue == AccountAdministration.userRecordName(ofServerKey: signer.keyID))
            #expect(try await signer.send("records/modify", body: Body.forceUpdate("u1", title: "by the backend")).itemCodes() == [nil])
        }
    }

    @Test func sdkSignedRequestsAreAcceptedAndATamperedKeyIsNot() async throws {
        try await withAuthServer { server in
            let signer = try await Signer.register(server)
            var configuration = ClientConfiguration()
            configuration.retryPolicy = .never
            configuration.now = { signer.date() }
            let container = Container(
                identifier: TestCloudKitServer.container, environment: .development, serverURL: server.http.url(""),
                authentication: .serverToServer(keyID: signer.keyID, privateKey: signer.key), configuration: configuration)
            var note = Record(recordType: "Note", recordID: RecordID(recordName: "sdk1"))
            note["title"] = "signed"
            let saved = try await container.publicCloudDatabase.save(note)
            #expect(saved.creatorUserRecordName == AccountAdministration.userRecordName(ofServerKey: signer.keyID))
            let fetched = try await container.publicCloudDatabase.record(for: RecordID(recordName: "sdk1"))
            #expect(fetched["title"] == "signed")

            let forged = Container(
                identifier: TestCloudKitServer.container, environment: .development, serverURL: server.http.url(""),
                authentication: .serverToServer(keyID: signer.keyID, privateKey: try P256PrivateKey()), configuration: configuration)
            await #expect {
                _ = try await forged.publicCloudDatabase.record(for: RecordID(recordName: "sdk1"))
            } throws: { error in
                (error as? StratusError)?.code == .notAuthenticated
            }
            // The SDK refuses nothing the server would: the private database is the server's refusal.
            await #expect(throws: StratusError.self) {
                _ = try await container.privateCloudDatabase.allRecordZones()
            }
        }
    }
}
