import Foundation
import StratusCrypto
import StratusServerCrypto
import StratusServer
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 14: a captured server-to-server request must not work a second time, whether sent
    /// as is, with a query string added (the query is not signed), or with its signature malleated.
    @Suite("14 server-to-server replay and malleability") struct ServerToServerReplayAttacks {
        static func signedHeaders(_ server: TestCloudKitServer, keyID: String, key: P256PrivateKey, body: String, operation: String) throws -> [String: String]
        {
            let date = Date(timeIntervalSince1970: TimeInterval(server.now) / 1000)
            return try ServerToServerSignature.headers(
                keyID: keyID, date: date, body: Data(body.utf8), path: TestCloudKitServer.path(operation, database: "public"), key: key)
        }

        @Test func aCapturedSignedRequestFailsWhenSentAgainInAnyForm() async throws {
            try await withAuthServer { server in
                let key = try P256PrivateKey()
                let keyID = try await server.admin().addServerKey(
                    container: TestCloudKitServer.container, environment: .development, name: "backend", publicKeyPEM: key.publicKey.pemRepresentation
                ).keyID
                let body = Body.create("n1")
                let headers = try Self.signedHeaders(server, keyID: keyID, key: key, body: body, operation: "records/modify")
                let first = try await server.exchange("records/modify", body, database: "public", headers: headers)
                #expect(first.status == 200 && first.itemCodes() == [nil], "\(first.text)")

                let replayed = try await server.exchange("records/modify", body, database: "public", headers: headers)
                #expect(replayed.status == 401, "the same request again: \(replayed.text)")
                let withQuery = try await server.exchange(
                    "records/modify", body: Data(body.utf8), database: "public", query: [("ckjsVersion", "2.6.4")], headers: headers)
                #expect(withQuery.status == 401, "the same request with a query string added: \(withQuery.text)")
                var twin = headers
                let signature = try #require(headers[ServerToServerSignature.signatureHeaderName])
                let date = try #require(headers[ServerToServerSignature.dateHeaderName])
                let der = try #require(Data(base64Encoded: signature))
                let malleated = ECDSASignatureTwin.of(der)
                #expect(malleated != der)
                let message = ServerToServerSignature.message(
                    date: date, body: Data(body.utf8), path: TestCloudKitServer.path("records/modify", database: "public"))
                #expect(key.publicKey.isValidSignature(malleated, for: Data(message.utf8)), "the twin is a valid signature")
                twin[ServerToServerSignature.signatureHeaderName] = malleated.base64EncodedString()
                let flipped = try await server.exchange("records/modify", body, database: "public", headers: twin)
                #expect(flipped.status == 401, "the request with (r, n − s): \(flipped.text)")

                // A fresh signature of the very same request (same second, same body) is a new request and works.
                let fresh = try Self.signedHeaders(server, keyID: keyID, key: key, body: Body.lookup("n1"), operation: "records/lookup")
                #expect(try await server.exchange("records/lookup", Body.lookup("n1"), database: "public", headers: fresh).status == 200)
                let again = try Self.signedHeaders(server, keyID: keyID, key: key, body: Body.lookup("n1"), operation: "records/lookup")
                #expect(try await server.exchange("records/lookup", Body.lookup("n1"), database: "public", headers: again).status == 200)
            }
        }
    }
}
