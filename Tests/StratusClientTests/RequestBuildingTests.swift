import Foundation
import StratusClient
import StratusCrypto
import StratusServerCrypto
import StratusWire
import Testing

/// Requests as Apple's CloudKit Web Services expects them, built without a network.
@Suite struct RequestBuildingTests {
    static let apple = URL(string: "https://api.apple-cloudkit.com")!
    static let containerID = "iCloud.com.example.App"
    static let signingDate = Date(timeIntervalSince1970: 1_453_760_143)  // 2016-01-25T22:15:43Z

    func container(_ authentication: Authentication, transport: FakeTransport? = nil) -> Container {
        var configuration = ClientConfiguration.fastTests
        configuration.now = { Self.signingDate }
        return Container(
            identifier: Self.containerID, environment: .development, serverURL: Self.apple, authentication: authentication,
            configuration: configuration, transport: transport ?? FakeTransport(json: "{}"))
    }

    /// An API-token request is a POST of the wire JSON to the documented URL with `ckAPIToken` in the query.
    @Test func apiTokenRequestMatchesAppleLayout() throws {
        let container = container(.apiToken("abc+/="))
        let query = Query(recordType: "Note", filters: [.equals("title", "x")], sorts: [.descending("rank")])
        let body = RecordsQuery.Request(query: query, zoneID: ZoneID(zoneName: "Inbox"), resultsLimit: 50)
        let request = try container.preparedRequest(RecordsQuery.self, body, in: .public)
        #expect(request.method == "POST")
        #expect(
            request.url.absoluteString
                == "https://api.apple-cloudkit.com/database/1/iCloud.com.example.App/development/public/records/query?ckAPIToken=abc%2B%2F%3D")
        #expect(request[header: "Content-Type"] == "application/json; charset=utf-8")
        #expect(request[header: ServerToServerSignature.signatureHeaderName] == nil)
        #expect(
            try canonicalJSON(request.body)
                == #"{"query":{"filterBy":[{"comparator":"EQUALS","fieldName":"title","fieldValue":{"type":"STRING","value":"x"}}],"#
                + #""recordType":"Note","sortBy":[{"ascending":false,"fieldName":"rank"}]},"resultsLimit":50,"zoneID":{"zoneName":"Inbox"}}"#)
    }

    /// zones/list is a GET without a body or content type.
    @Test func zonesListIsABodylessGet() throws {
        let request = try container(.apiToken("t")).preparedRequest(ZonesList.self, EmptyBody(), in: .private)
        #expect(request.method == "GET")
        #expect(request.body.isEmpty)
        #expect(request[header: "Content-Type"] == nil)
        #expect(request.url.path == "/database/1/iCloud.com.example.App/development/private/zones/list")
    }

    /// The web auth token is percent-encoded (`+ / =`) and replaced by each response's header.
    @Test func webAuthTokenIsEncodedAndRefreshedFromResponses() async throws {
        let transport = FakeTransport { _, index in
            TransportResponse(
                status: 200, headers: [HTTPHeaderField("X-Apple-CloudKit-Web-Auth-Token", "fresh+\(index)/t==")],
                body: Data(#"{"zones":[]}"#.utf8))
        }
        let container = container(.apiToken("api", webAuthToken: "a+b/c="), transport: transport)
        _ = try await container.privateCloudDatabase.allRecordZones()
        _ = try await container.privateCloudDatabase.allRecordZones()
        let queries = transport.sent.map { $0.url.query ?? "" }
        #expect(queries == ["ckAPIToken=api&ckWebAuthToken=a%2Bb%2Fc%3D", "ckAPIToken=api&ckWebAuthToken=fresh%2B0%2Ft%3D%3D"])
        #expect(container.webAuthToken == "fresh+1/t==")
    }

    /// Secrets never show in descriptions.
    @Test func authenticationDescriptionsRedactSecrets() throws {
        let key = try P256PrivateKey()
        for authentication in [
            Authentication.apiToken("SECRET"), .apiToken("SECRET", webAuthToken: "SECRET2"),
            .serverToServer(keyID: "kid", privateKey: key),
        ] {
            var dumped = ""
            dump(authentication, to: &dumped)
            #expect(!"\(authentication)".contains("SECRET"))
            #expect(!dumped.contains("SECRET"))
        }
    }

    /// A server-to-server request carries KeyID, a whole-second ISO 8601 date and a signature over
    /// `date:base64(sha256(body)):path`, never the API token, and the signature verifies.
    @Test func serverToServerRequestIsSignedPerSection10_3() throws {
        let key = try P256PrivateKey()
        let container = container(.serverToServer(keyID: "key-1", privateKey: key))
        let body = RecordsQuery.Request(query: Query(recordType: "Note"))
        let request = try container.preparedRequest(RecordsQuery.self, body, in: .public)
        #expect(request.url.query == nil)
        #expect(request[header: "X-Apple-CloudKit-Request-KeyID"] == "key-1")
        #expect(request[header: "X-Apple-CloudKit-Request-ISO8601Date"] == "2016-01-25T22:15:43Z")
        let signature = try #require(request[header: "X-Apple-CloudKit-Request-SignatureV1"])
        let der = try #require(Data(base64Encoded: signature))
        let message = "2016-01-25T22:15:43Z:\(SHA256.hash(request.body).base64):/database/1/iCloud.com.example.App/development/public/records/query"
        #expect(key.publicKey.isValidSignature(der, for: Data(message.utf8)))
        #expect(!key.publicKey.isValidSignature(der, for: Data((message + "x").utf8)))
        #expect(
            ServerToServerSignature.isValidSignature(
                signature, date: "2016-01-25T22:15:43Z", body: request.body, path: request.url.absoluteString, publicKey: key.publicKey))
    }

    /// A body-less GET signs an empty hash segment: `date::path`.
    @Test func serverToServerGetSignsAnEmptyHashSegment() throws {
        let key = try P256PrivateKey()
        let request = try container(.serverToServer(keyID: "k", privateKey: key)).preparedRequest(ZonesList.self, EmptyBody(), in: .public)
        let header = try #require(request[header: "X-Apple-CloudKit-Request-SignatureV1"])
        let der = try #require(Data(base64Encoded: header))
        let message = "2016-01-25T22:15:43Z::/database/1/iCloud.com.example.App/development/public/zones/list"
        #expect(key.publicKey.isValidSignature(der, for: Data(message.utf8)))
    }

    /// `openssl dgst -sha256 -verify` accepts the SDK's signature and rejects it for a changed byte.
    @Test(.enabled(if: OpenSSLVerifier.isAvailable, "needs /usr/bin/openssl"))
    func opensslVerifiesTheSDKSignature() throws {
        let key = try P256PrivateKey()
        let container = container(.serverToServer(keyID: "k", privateKey: key))
        let body = RecordsModify.Request(operations: [.forceDelete(RecordID(recordName: "x"))])
        let request = try container.preparedRequest(RecordsModify.self, body, in: .public)
        let header = try #require(request[header: "X-Apple-CloudKit-Request-SignatureV1"])
        let der = try #require(Data(base64Encoded: header))
        let message = Data("2016-01-25T22:15:43Z:\(SHA256.hash(request.body).base64):\(request.url.path)".utf8)
        let verified = try OpenSSLVerifier.verify(message: message, derSignature: der, publicKeyPEM: key.publicKey.pemRepresentation)
        #expect(verified.status == 0)
        #expect(verified.output.contains("Verified OK"))
        var tampered = message
        tampered[tampered.startIndex] ^= 1
        let rejected = try OpenSSLVerifier.verify(message: tampered, derSignature: der, publicKeyPEM: key.publicKey.pemRepresentation)
        #expect(rejected.status != 0)
    }

    /// A server URL with a trailing slash and a path prefix still yields one clean path.
    @Test func serverURLTrailingSlashIsNormalised() throws {
        let container = Container(
            identifier: "iCloud.x", environment: .production, serverURL: URL(string: "http://127.0.0.1:8080/")!,
            authentication: .none, transport: FakeTransport(json: "{}"))
        let request = try container.preparedRequest(RecordsLookup.self, RecordsLookup.Request(records: []), in: .private)
        #expect(request.url.absoluteString == "http://127.0.0.1:8080/database/1/iCloud.x/production/private/records/lookup")
    }
}
