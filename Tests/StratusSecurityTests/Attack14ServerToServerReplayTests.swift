import Foundation
import StratusCrypto
import StratusServer
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 14: a captured server-to-server request must not work a second time, whether sent
    /// as is, with a query string added (the query is not signed), or with its signature malleated.
    @Suite("14 server-to-server replay and malleability") struct ServerToServerReplayAttacks {
        /// The order n of the P-256 group, big-endian.
        static let order: [UInt8] = [
            0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
            0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
        ]

        /// The other valid signature `(r, n − s)` of a DER signature `(r, s)`.
        static func malleated(_ der: Data) throws -> Data {
            let bytes = [UInt8](der)
            let rLength = Int(bytes[3])
            let r = Array(bytes[4..<(4 + rLength)])
            let sLength = Int(bytes[5 + rLength])
            let s = Array(bytes[(6 + rLength)..<(6 + rLength + sLength)].drop { $0 == 0 })
            var padded = [UInt8](repeating: 0, count: 32 - s.count) + s
            var borrow = 0
            for index in (0..<32).reversed() {
                let difference = Int(order[index]) - Int(padded[index]) - borrow
                padded[index] = UInt8((difference + 256) % 256)
                borrow = difference < 0 ? 1 : 0
            }
            var twin = Array(padded.drop { $0 == 0 })
            if let first = twin.first, first >= 0x80 { twin.insert(0, at: 0) }
            let body = [0x02, UInt8(r.count)] + r + [0x02, UInt8(twin.count)] + twin
            return Data([0x30, UInt8(body.count)] + body)
        }

        static func signedHeaders(_ server: TestCloudKitServer, keyID: String, key: P256PrivateKey, body: String, operation: String) throws -> [String: String] {
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
                let malleated = try Self.malleated(der)
                #expect(malleated != der)
                let message = ServerToServerSignature.message(date: date, body: Data(body.utf8), path: TestCloudKitServer.path("records/modify", database: "public"))
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
