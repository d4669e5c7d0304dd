import Foundation
import StratusCrypto
import StratusServerCrypto
@testable import StratusServer
import StratusWire
import Testing

/// The pure parts of APNs delivery: provider tokens, payloads, answers, backoff, token format, credentials.
@Suite struct APNsUnitTests {
    static func credentials(_ key: P256PrivateKey) throws -> APNsCredentials {
        try APNsCredentials.validated(
            container: "iCloud.com.example.Tests", environment: .development, keyID: "ABC123DEFG", teamID: "TEAM123456",
            topic: "com.example.Tests", privateKeyPEM: key.pemRepresentation, now: 0
        )
    }

    static func decode(_ part: Substring) throws -> [String: Any] {
        let data = try #require(Data(base64URLEncoded: String(part)))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func providerTokenIsAnES256JWTThatVerifiesWithThePublicKey() throws {
        let key = try P256PrivateKey()
        let tokens = APNsProviderTokens(lifetime: 50 * 60_000)
        let jwt = try tokens.token(for: try Self.credentials(key), now: 1_800_000_000_123)
        let parts = jwt.split(separator: ".")
        #expect(parts.count == 3)
        let header = try Self.decode(parts[0])
        let claims = try Self.decode(parts[1])
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == "ABC123DEFG")
        #expect(claims["iss"] as? String == "TEAM123456")
        #expect((claims["iat"] as? NSNumber)?.int64Value == 1_800_000_000)
        let signature = try #require(Data(base64URLEncoded: String(parts[2])))
        #expect(signature.count == 64)
        #expect(key.publicKey.isValidRawSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
        #expect(!(try P256PrivateKey()).publicKey.isValidRawSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
    }

    @Test func providerTokenIsReusedWithinItsLifetimeAndRenewedAfter() throws {
        let credentials = try Self.credentials(try P256PrivateKey())
        let tokens = APNsProviderTokens(lifetime: 50 * 60_000)
        let start: Int64 = 1_800_000_000_000
        let first = try tokens.token(for: credentials, now: start)
        #expect(try tokens.token(for: credentials, now: start + 49 * 60_000) == first)
        let renewed = try tokens.token(for: credentials, now: start + 50 * 60_000)
        #expect(renewed != first)
        tokens.expire(first, for: credentials)  // an old token: leaves the current one alone
        #expect(try tokens.token(for: credentials, now: start + 51 * 60_000) == renewed)
        tokens.expire(renewed, for: credentials)
        #expect(try tokens.token(for: credentials, now: start + 51 * 60_000) != renewed)
    }

    @Test func providerTokenLifetimeStaysInsideApplesWindow() {
        var configuration = APNsConfiguration()
        configuration.providerTokenLifetime = .seconds(60)
        #expect(configuration.providerTokenLifetimeMilliseconds == 20 * 60_000)
        configuration.providerTokenLifetime = .seconds(7200)
        #expect(configuration.providerTokenLifetimeMilliseconds == 59 * 60_000)
        #expect(APNsConfiguration().providerTokenLifetimeMilliseconds == 50 * 60_000)
    }

    @Test func answersAreClassifiedAsAPNsDocumentsThem() {
        func of(_ status: Int, _ body: String = "", headers: [String: String] = [:]) -> APNsResponseDisposition {
            .of(APNsResponse(status: status, headers: headers, body: Array(body.utf8)))
        }
        #expect(of(200) == .delivered)
        #expect(of(410, #"{"reason":"Unregistered","timestamp":1800000000000}"#) == .unregistered(since: 1_800_000_000_000))
        #expect(of(410, "garbage") == .unregistered(since: nil))
        #expect(of(400, #"{"reason":"BadDeviceToken"}"#) == .unregistered(since: nil))
        #expect(of(400, #"{"reason":"DeviceTokenNotForTopic"}"#) == .unregistered(since: nil))
        #expect(of(403, #"{"reason":"ExpiredProviderToken"}"#) == .refreshProviderToken)
        #expect(of(403, #"{"reason":"InvalidProviderToken"}"#) == .rejected("APNs answered 403 InvalidProviderToken"))
        #expect(of(429, #"{"reason":"TooManyRequests"}"#) == .retry(after: nil))
        #expect(of(503, headers: ["retry-after": "7"]) == .retry(after: 7))
        #expect(of(500, headers: ["retry-after": "999999"]) == .retry(after: 3600))
        #expect(of(400, #"{"reason":"<script>alert(1)</script>"}"#) == .rejected("APNs answered 400"))
        #expect(of(413, String(repeating: "x", count: 100_000)) == .rejected("APNs answered 413"))
        #expect(APNsResponseDisposition.of(APNsTransportError(.timeout, "slow")) == .retry(after: nil))
    }

    @Test func backoffDoublesIsCappedJitteredAndHonoursRetryAfter() {
        func wait(_ attempt: Int, _ random: Double, retryAfter: Int? = nil) -> Int64 {
            APNsResponseDisposition.backoff(attempt: attempt, base: 1000, maximum: 300_000, retryAfter: retryAfter, random: random)
        }
        #expect(wait(1, 1) == 1000)
        #expect(wait(1, 0) == 500)
        #expect(wait(3, 1) == 4000)
        #expect(wait(30, 1) == 300_000)
        #expect(wait(1000, 0.5) == 225_000)
        #expect(wait(1, 0, retryAfter: 10) == 10_000)
    }

    @Test func silentPushCarriesOnlyContentAvailable() throws {
        var ck = CourierNotification.CK(cid: "iCloud.x", nid: "n", ckuserid: "_u")
        ck.fet = CourierNotification.ZoneNotification(zid: "Inbox", zoid: "_u", dbs: 2, sid: "s")
        let withCategory = CourierNotification(aps: CourierNotification.APS(category: "c", contentAvailable: 1), ck: ck)
        for notification in [CourierNotification(ck: ck), withCategory] {
            let payload = try #require(APNsPayload.make(for: notification))
            #expect(payload.pushType == .background)
            #expect(payload.priority == 5)
            let decoded = try WireCoding.decode(CourierNotification.self, from: Data(payload.body))
            #expect(decoded.aps == CourierNotification.APS(contentAvailable: 1))
            #expect(decoded.ck == ck)
        }
    }

    @Test func alertPushKeepsTheAlertAndIsPrunedToFourKilobytes() throws {
        var ck = CourierNotification.CK(cid: "iCloud.x", nid: "n", ckuserid: "_u")
        ck.qry = CourierNotification.QueryNotification(sid: "s", rid: "r", af: ["body": .string(String(repeating: "x", count: 6000))])
        let notification = CourierNotification(aps: CourierNotification.APS(alert: .text("Hello"), sound: "ping"), ck: ck)
        let payload = try #require(APNsPayload.make(for: notification))
        #expect(payload.pushType == .alert)
        #expect(payload.priority == 10)
        #expect(payload.body.count <= 4096)
        let decoded = try WireCoding.decode(CourierNotification.self, from: Data(payload.body))
        #expect(decoded.ck.qry?.af == nil)
        #expect(decoded.ck.p != nil)
        #expect(decoded.aps?.alert == .text("Hello"))

        let long = CourierNotification(aps: CourierNotification.APS(alert: .text(String(repeating: "é", count: 5000))), ck: ck)
        let shortened = try #require(APNsPayload.make(for: long))
        #expect(shortened.body.count <= 4096)
    }

    @Test func deviceTokensAreHexOfThirtyTwoToOneHundredBytes() {
        #expect(APNsDeviceTokenFormat.normalized(String(repeating: "Ab", count: 32)) == String(repeating: "ab", count: 32))
        #expect(APNsDeviceTokenFormat.normalized(String(repeating: "0", count: 200)) != nil)
        #expect(APNsDeviceTokenFormat.normalized(String(repeating: "0", count: 202)) == nil)
        #expect(APNsDeviceTokenFormat.normalized(String(repeating: "0", count: 62)) == nil)
        #expect(APNsDeviceTokenFormat.normalized(String(repeating: "0", count: 65)) == nil)
        #expect(APNsDeviceTokenFormat.normalized(String(repeating: "g", count: 64)) == nil)
        #expect(APNsDeviceTokenFormat.normalized("../" + String(repeating: "0", count: 62)) == nil)
        // A web courier token (43 base64url characters) is never taken for a device token.
        #expect(APNsDeviceTokenFormat.normalized(Data(repeating: 0xAB, count: 32).base64URLEncodedString()) == nil)
    }

    @Test func credentialsAreCheckedAndNeverShowTheKey() throws {
        let key = try P256PrivateKey()
        let credentials = try Self.credentials(key)
        let body = key.pemRepresentation.split(separator: "\n").dropFirst().dropLast().joined()
        #expect(!credentials.description.contains(body.prefix(20)))
        var dumped = ""
        dump(credentials, to: &dumped)
        #expect(!dumped.contains(body.prefix(20)))
        #expect(!String(reflecting: credentials).contains(body.prefix(20)))
        #expect(credentials.publicKeyFingerprint.hasPrefix("sha256:"))

        func refusal(keyID: String = "ABC123DEFG", teamID: String = "TEAM123456", topic: String = "com.example.Tests", pem: String) -> String? {
            do {
                _ = try APNsCredentials.validated(
                    container: "c", environment: .production, keyID: keyID, teamID: teamID, topic: topic, privateKeyPEM: pem, now: 0
                )
                return nil
            } catch {
                return error.message
            }
        }
        let pem = key.pemRepresentation
        #expect(refusal(keyID: "short", pem: pem)?.contains("key ID") == true)
        #expect(refusal(teamID: "team123456", pem: pem)?.contains("team ID") == true)
        #expect(refusal(topic: "com.example/../x", pem: pem)?.contains("topic") == true)
        let secret = "-----BEGIN PRIVATE KEY-----\nTOPSECRETNOTAKEY\n-----END PRIVATE KEY-----\n"
        let message = try #require(refusal(pem: secret))
        #expect(!message.contains("TOPSECRET"))
        #expect(refusal(pem: try P256PrivateKey().ecPEMRepresentation) == nil)  // SEC 1 is read too, and stored as PKCS #8
    }
}
