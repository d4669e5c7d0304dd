import Foundation
import StratusCrypto
import StratusServerCrypto
import Testing

@Suite struct ServerToServerSignatureTests {
    let privateKey: P256PrivateKey
    let publicKey: P256PublicKey

    init() throws {
        privateKey = try P256PrivateKey(pemRepresentation: Fixtures.privateKeyPEM)
        publicKey = try P256PublicKey(pemRepresentation: Fixtures.publicKeyPEM)
    }

    /// The signed message is `<date>:<base64(SHA-256(body))>:<path>`, byte for byte.
    @Test func messageJoinsDateBodyHashAndPathWithColons() {
        let message = ServerToServerSignature.message(date: Fixtures.date, body: Fixtures.queryBody, path: Fixtures.queryPath)
        #expect(message == "2016-01-25T22:15:43Z:v94ubc2eSfeBVawdNLNf9lFgsfIM9VINCJZputHBt6k=:" + Fixtures.queryPath)
        #expect(ServerToServerSignature.bodyHash(for: Fixtures.queryBody) == Fixtures.queryBodyHash)
        #expect(ServerToServerSignature.bodyHash(for: Data("{}".utf8)) == "RBNvo1WzZ4oRRq0W9+hknpT7T8If536DEMBg9hyq/4o=")
    }

    /// A body-less request signs an empty hash field, not the hash of zero bytes.
    @Test func emptyBodyHasEmptyHashField() {
        #expect(ServerToServerSignature.bodyHash(for: Data()) == "")
        #expect(
            ServerToServerSignature.message(date: Fixtures.date, body: Data(), path: Fixtures.zonesListPath)
                == "2016-01-25T22:15:43Z::" + Fixtures.zonesListPath
        )
    }

    /// The query string, fragment, scheme and host are never part of the signed path.
    @Test(arguments: [
        ("/database/1/c/development/public/records/query", "/database/1/c/development/public/records/query"),
        ("/database/1/c/development/public/records/query?ckAPIToken=abc&x=1", "/database/1/c/development/public/records/query"),
        ("/database/1/c/development/public/zones/list#frag", "/database/1/c/development/public/zones/list"),
        (
            "https://api.apple-cloudkit.com/database/1/c/development/public/zones/list?a=b",
            "/database/1/c/development/public/zones/list"
        ),
        ("https://example.com", "/"),
        ("/database/1/c/a%20b", "/database/1/c/a%20b"),
    ])
    func signedPathDropsQueryAndOrigin(target: String, expected: String) {
        #expect(ServerToServerSignature.signedPath(target) == expected)
        #expect(ServerToServerSignature.message(date: "d", body: Data(), path: target) == "d::" + expected)
    }

    /// Signatures that openssl made over known messages verify (known-answer test).
    @Test func opensslSignaturesOfKnownMessagesVerify() {
        #expect(
            ServerToServerSignature.isValidSignature(
                Fixtures.querySignature, date: Fixtures.date, body: Fixtures.queryBody,
                path: Fixtures.queryPath, publicKey: publicKey)
        )
        #expect(
            ServerToServerSignature.isValidSignature(
                Fixtures.zonesListSignature, date: Fixtures.date, body: Data(),
                path: Fixtures.zonesListPath + "?ckAPIToken=ignored", publicKey: publicKey)
        )
    }

    /// Changing the date, body or path, or using another key, must fail verification.
    @Test func tamperedRequestsAreRejected() throws {
        func verify(
            _ signature: String = Fixtures.querySignature, date: String = Fixtures.date,
            body: Data = Fixtures.queryBody, path: String = Fixtures.queryPath,
            key: P256PublicKey? = nil
        ) -> Bool {
            ServerToServerSignature.isValidSignature(signature, date: date, body: body, path: path, publicKey: key ?? publicKey)
        }
        #expect(verify())
        #expect(!verify(date: "2016-01-25T22:15:44Z"))
        #expect(!verify(body: Data(#"{"query":{"recordType":"Iten"}}"#.utf8)))
        #expect(!verify(body: Data()))
        #expect(!verify(path: Fixtures.queryPath.replacingOccurrences(of: "public", with: "private")))
        #expect(!verify(path: Fixtures.queryPath + "/"))
        #expect(!verify(key: try P256PrivateKey().publicKey))
    }

    /// Garbage in the signature header is `false`, never a crash.
    @Test(arguments: [
        "", "not base64!", "AAAA", "MEQCIA==", String(repeating: "A", count: 96),
        Data(count: 72).base64EncodedString(), Data(repeating: 0xFF, count: 200).base64EncodedString(),
        // A valid DER shape with r = s = 0.
        Data([0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00]).base64EncodedString(),
    ])
    func garbageSignaturesAreRejected(signature: String) {
        #expect(
            !ServerToServerSignature.isValidSignature(
                signature, date: Fixtures.date, body: Fixtures.queryBody, path: Fixtures.queryPath, publicKey: publicKey)
        )
    }

    /// For an empty body, the verifier accepts both the empty hash field and the hash of zero bytes.
    @Test func emptyBodyVerificationAcceptsBothHashForms() throws {
        let emptyFieldSignature = try ServerToServerSignature.signature(
            date: Fixtures.date, body: Data(), path: Fixtures.zonesListPath, key: privateKey)
        let hashedEmptyMessage = "\(Fixtures.date):47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:\(Fixtures.zonesListPath)"
        let hashedEmptySignature = try privateKey.signature(for: Data(hashedEmptyMessage.utf8)).base64EncodedString()

        for signature in [emptyFieldSignature, hashedEmptySignature] {
            #expect(
                ServerToServerSignature.isValidSignature(
                    signature, date: Fixtures.date, body: Data(), path: Fixtures.zonesListPath, publicKey: publicKey)
            )
        }
        // A non-empty body is held to its real hash only.
        let wrongForm = try privateKey.signature(for: Data("\(Fixtures.date)::\(Fixtures.queryPath)".utf8)).base64EncodedString()
        #expect(
            !ServerToServerSignature.isValidSignature(
                wrongForm, date: Fixtures.date, body: Fixtures.queryBody, path: Fixtures.queryPath, publicKey: publicKey)
        )
    }

    /// Signing and verifying round-trip, including the three headers helper.
    @Test func signedHeadersVerify() throws {
        let now = Date(timeIntervalSince1970: 1_453_760_143.75)
        let headers = try ServerToServerSignature.headers(
            keyID: "key-1", date: now, body: Fixtures.queryBody, path: Fixtures.queryPath + "?ckAPIToken=t", key: privateKey)
        #expect(headers[ServerToServerSignature.keyIDHeaderName] == "key-1")
        let date = try #require(headers[ServerToServerSignature.dateHeaderName])
        #expect(date == "2016-01-25T22:15:43Z")
        let signature = try #require(headers[ServerToServerSignature.signatureHeaderName])
        #expect(Data(base64Encoded: signature) != nil)
        #expect(
            ServerToServerSignature.isValidSignature(
                signature, date: date, body: Fixtures.queryBody, path: Fixtures.queryPath, publicKey: publicKey)
        )
        #expect(ServerToServerSignature.isDateAcceptable(date, now: now))
    }
}
