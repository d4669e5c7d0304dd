import Foundation
import StratusCrypto
import StratusHTTP
import StratusServer
import StratusServerSQLite
import StratusTesting
import StratusWire
import Testing

/// API tokens and web auth tokens: what they open, rotation, expiry, revocation.
@Suite struct CredentialTests {
    @Test func missingUnknownAndWrongEnvironmentAPITokensFailTheSameOpaqueWay() async throws {
        try await withAuthServer { server in
            let production = try await server.makeAPIToken(environment: .production)
            let replies = [
                try await server.exchange("records/lookup", Body.lookup("x"), database: "public"),
                try await server.exchange("records/lookup", Body.lookup("x"), database: "public", query: [("ckAPIToken", String(repeating: "a", count: 64))]),
                try await server.exchange("records/lookup", Body.lookup("x"), database: "public", query: [("ckAPIToken", production)]),
            ]
            for reply in replies {
                #expect(reply.status == 401)
                #expect(reply.serverErrorCode == "AUTHENTICATION_FAILED")
                #expect(reply.bodyWithoutUUID == replies[0].bodyWithoutUUID)
            }
            let token = try await server.makeAPIToken()
            #expect(try await server.exchange("records/lookup", Body.lookup("x"), database: "public", query: [("ckAPIToken", token)]).status == 200)
        }
    }

    @Test func revokedAPITokenLosesAccessOnTheNextRequest() async throws {
        try await withAuthServer { server in
            let user = try await server.signedInUser("a@example.com")
            #expect(try await server.exchange("zones/list", method: "GET", query: user.query).status == 200)
            let revoked = try await server.admin().revokeAPIToken(String(user.apiToken.prefix(8)))
            #expect(revoked.revokedAt != nil)
            let reply = try await server.exchange("zones/list", method: "GET", query: user.query)
            #expect(reply.status == 401)
            #expect(reply.serverErrorCode == "AUTHENTICATION_FAILED")
        }
    }

    @Test func anAPITokenAloneRevokedHereOrThroughAnotherStoreHandleFailsOnTheVeryNextRequest() async throws {
        try await withAuthServer { server in
            let here = try await server.makeAPIToken()
            let there = try await server.makeAPIToken()
            // Twice each, so the second request is answered from the server's token cache.
            for token in [here, there, here, there] {
                #expect(try await server.exchange("zones/list", method: "GET", database: "public", query: [("ckAPIToken", token)]).status == 200)
            }
            _ = try await server.admin().revokeAPIToken(here)
            #expect(try await server.exchange("zones/list", method: "GET", database: "public", query: [("ckAPIToken", here)]).status == 401)
            #expect(try await server.exchange("zones/list", method: "GET", database: "public", query: [("ckAPIToken", there)]).status == 200)
            // What `stratus token revoke` in another process does: its own handle on the file.
            let other = try await SQLiteRecordStore.open(path: server.directory.path("stratus.sqlite"))
            let revoked = try await other.writeAccounts { try $0.revokeAPIToken(hash: SHA256.hash(there).hexString, at: 1) }
            try await other.close()
            #expect(revoked)
            let refused = try await server.exchange("zones/list", method: "GET", database: "public", query: [("ckAPIToken", there)])
            #expect(refused.status == 401, "\(refused.text)")
            #expect(refused.serverErrorCode == "AUTHENTICATION_FAILED")
        }
    }

    @Test func signedOutWebAuthTokenLosesAccessOnTheNextRequest() async throws {
        try await withAuthServer { server in
            let user = try await server.signedInUser("a@example.com")
            let first = try await server.exchange("zones/list", method: "GET", query: user.query)
            #expect(first.status == 200)
            let rotated = try #require(first.headers["x-apple-cloudkit-web-auth-token"])
            let signOut = try await server.exchange("/signout", method: "POST", query: [("ckWebAuthToken", user.webAuthToken)])
            #expect(signOut.status == 200)
            for token in [user.webAuthToken, rotated] {
                let reply = try await server.exchange("zones/list", method: "GET", query: [("ckAPIToken", user.apiToken), ("ckWebAuthToken", token)])
                #expect(reply.status == 401)
            }
        }
    }

    @Test func aSessionSignedOutThroughAnotherStoreHandleIsRefusedOnTheVeryNextRequest() async throws {
        try await withAuthServer { server in
            let user = try await server.signedInUser("a@example.com")
            let first = try await server.exchange("zones/list", method: "GET", query: user.query)
            #expect(first.status == 200)
            let rotated = try #require(first.headers["x-apple-cloudkit-web-auth-token"])
            #expect(try await server.exchange("zones/list", method: "GET", query: [("ckAPIToken", user.apiToken), ("ckWebAuthToken", rotated)]).status == 200)
            // The session is read on the store's own connections, on the request's thread: it must see this commit.
            let here = try #require(server.store as? SQLiteRecordStore)
            let found = try here.readAccountsInPlace { try $0.user(recordName: user.recordName) }
            #expect(found??.userRecordName == user.recordName)
            // A sign-out by another process (another node, an administrator's tool): its own handle on the file.
            let other = try await SQLiteRecordStore.open(path: server.directory.path("stratus.sqlite"))
            try await other.writeAccounts { try $0.revokeSessions(ofUser: user.recordName, at: 1) }
            try await other.close()
            for token in [user.webAuthToken, rotated] {
                let reply = try await server.exchange("zones/list", method: "GET", query: [("ckAPIToken", user.apiToken), ("ckWebAuthToken", token)])
                #expect(reply.status == 401)
                #expect(reply.serverErrorCode == "AUTHENTICATION_FAILED")
            }
        }
    }

    @Test func everyResponseCarriesAFreshTokenAndPreviousTokensWorkWithinTheGraceWindow() async throws {
        try await withAuthServer { server in
            let user = try await server.signedInUser("a@example.com")
            let query = { (token: String) in [("ckAPIToken", user.apiToken), ("ckWebAuthToken", token)] }
            let t0 = user.webAuthToken
            let first = try await server.exchange("zones/list", method: "GET", query: query(t0))
            let t1 = try #require(first.headers["x-apple-cloudkit-web-auth-token"])
            #expect(t1 != t0)
            #expect(t1.count >= 100)
            #expect(t1.allSatisfy { $0.isLetter || $0.isNumber || "+/=".contains($0) })
            // Error responses carry one too.
            let failed = try await server.exchange("records/query", #"{"query":{"recordType":"Missing"}}"#, query: query(t1))
            #expect(failed.status == 400)
            #expect(failed.headers["x-apple-cloudkit-web-auth-token"] != nil)
            // Both tokens work while they are close together.
            #expect(try await server.exchange("zones/list", method: "GET", query: query(t0)).status == 200)
            // Six minutes on, t1 still works (30-minute lifetime) and yields t2; once t2 is used, t0 is beyond the grace window.
            server.advanceClock(by: .seconds(6 * 60))
            let second = try await server.exchange("zones/list", method: "GET", query: query(t1))
            #expect(second.status == 200)
            let t2 = try #require(second.headers["x-apple-cloudkit-web-auth-token"])
            #expect(try await server.exchange("zones/list", method: "GET", query: query(t2)).status == 200)
            #expect(try await server.exchange("zones/list", method: "GET", query: query(t0)).status == 401)
            #expect(try await server.exchange("zones/list", method: "GET", query: query(t2)).status == 200)
        }
    }

    @Test func tokensExpireAfterThirtyMinutesOrTwoWeeksWithKeepMeSignedIn() async throws {
        try await withAuthServer { server in
            let short = try await server.signedInUser("a@example.com")
            let long = try await server.signedInUser("b@example.com", keepSignedIn: true)
            server.advanceClock(by: .seconds(29 * 60))
            #expect(try await server.exchange("zones/list", method: "GET", query: short.query).status == 200)
            server.advanceClock(by: .seconds(2 * 60))
            #expect(try await server.exchange("zones/list", method: "GET", query: short.query).status == 401)
            #expect(try await server.exchange("zones/list", method: "GET", query: long.query).status == 200)
            server.advanceClock(by: .seconds(14 * 24 * 3600))
            #expect(try await server.exchange("zones/list", method: "GET", query: long.query).status == 401)
        }
    }

    @Test func webAuthTokenArrivesIntactWhetherEncodedOrNot() async throws {
        try await withAuthServer { server in
            var user = try await server.signedInUser("a@example.com")
            // Find a token with the characters that need care.
            while !(user.webAuthToken.contains("+") && user.webAuthToken.contains("/")) {
                user.webAuthToken = try await server.admin().webAuthToken(for: user.recordName, container: TestCloudKitServer.container)
            }
            let path = TestCloudKitServer.path("zones/list", database: "private")
            for raw in [
                TestCloudKitServer.percentEncoded(user.webAuthToken),  // + / = percent-encoded, as Apple asks
                user.webAuthToken,  // sent raw: '+' may become a space on the way
                user.webAuthToken.replacingOccurrences(of: "+", with: "%20"),
            ] {
                let reply = try await RawHTTPConnection.exchange(
                    port: server.http.port,
                    "GET \(path)?ckAPIToken=\(user.apiToken)&ckWebAuthToken=\(raw) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                )
                #expect(reply.status == 200, "token sent as \(raw)")
            }
        }
    }

    @Test func tamperedOrForeignWebAuthTokensAreRejected() async throws {
        try await withAuthServer(containers: [TestCloudKitServer.container, "iCloud.com.example.Other"]) { server in
            let user = try await server.signedInUser("a@example.com")
            var bytes = Array(user.webAuthToken)
            bytes[40] = bytes[40] == "A" ? "B" : "A"
            let tampered = String(bytes)
            let reply = try await server.exchange("zones/list", method: "GET", query: [("ckAPIToken", user.apiToken), ("ckWebAuthToken", tampered)])
            #expect(reply.status == 401)
            // A token of a session opened for another container does not work here.
            let other = try await server.admin().webAuthToken(for: user.recordName, container: "iCloud.com.example.Other")
            #expect(try await server.exchange("zones/list", method: "GET", query: [("ckAPIToken", user.apiToken), ("ckWebAuthToken", other)]).status == 401)
        }
    }

    /// The server remembers the tokens it issued and opened (0006, "Work per request"), but only
    /// what they name: a token it accepted a moment ago, changed by one character, is refused, and
    /// the accepted token itself is refused once its account is disabled. (Expiry, sign-out and
    /// a revoked API token after a successful request: the tests above.)
    @Test func aTokenAcceptedBeforeIsRefusedWhenChangedOrItsAccountDisabled() async throws {
        try await withAuthServer { server in
            let user = try await server.signedInUser("a@example.com")
            let first = try await server.exchange("zones/list", method: "GET", query: user.query)
            #expect(first.status == 200)
            let issued = try #require(first.headers["x-apple-cloudkit-web-auth-token"])
            for token in [user.webAuthToken, issued] {
                #expect(
                    try await server.exchange("zones/list", method: "GET", query: [("ckAPIToken", user.apiToken), ("ckWebAuthToken", token)]).status == 200)
                var characters = Array(token)
                characters[40] = characters[40] == "A" ? "B" : "A"
                let changed = try await server.exchange(
                    "zones/list", method: "GET", query: [("ckAPIToken", user.apiToken), ("ckWebAuthToken", String(characters))]
                )
                #expect(changed.status == 401)
            }
            _ = try await server.admin().setDisabled(true, forUserMatching: user.recordName)
            let disabled = try await server.exchange("zones/list", method: "GET", query: [("ckAPIToken", user.apiToken), ("ckWebAuthToken", issued)])
            #expect(disabled.status == 403)
            #expect(disabled.serverErrorCode == "ACCESS_DENIED")
        }
    }

    @Test func userEndpointsWithoutAUserAnswer421WithTheSignInPage() async throws {
        try await withAuthServer { server in
            let token = try await server.makeAPIToken()
            let reply = try await server.exchange("users/caller", method: "GET", database: "public", query: [("ckAPIToken", token)])
            #expect(reply.status == 421)
            #expect(reply.serverErrorCode == "AUTHENTICATION_REQUIRED")
            #expect(reply.reason == "request needs authorization")
            let redirect = try #require(reply.json["redirectURL"]?.stringValue)
            #expect(redirect == "http://127.0.0.1:\(server.http.port)/signin?ckAPIToken=\(token)")
            let browserToken = try await server.makeBrowserAPIToken()
            let page = try await server.exchange("/signin?ckAPIToken=\(browserToken)", method: "GET")
            #expect(page.status == 200)
            #expect(page.text.contains(#"action="/signin""#))
            #expect(page.text.contains("Keep me signed in"))
        }
    }

    @Test func browsersMayReadResponsesOnlyFromTheTokensAllowedOrigins() async throws {
        try await withAuthServer { server in
            let (token, _) = try await server.admin().createAPIToken(
                container: TestCloudKitServer.container, environment: .development, name: "web", allowedOrigins: ["https://app.example.com"])
            let open = try await server.makeAPIToken()
            for apiToken in [token, open] {
                #expect(try await server.exchange("records/lookup", Body.lookup("x"), database: "public", query: [("ckAPIToken", apiToken)]).status == 200)
            }
            let request = { (apiToken: String) in HTTPRequest(method: .post, path: "/", query: ["ckAPIToken": apiToken]) }
            #expect(server.service.isOriginAllowed("https://app.example.com", for: request(token)))
            #expect(!server.service.isOriginAllowed("https://evil.example.com", for: request(token)))
            #expect(server.service.isOriginAllowed("https://evil.example.com", for: request(open)))
        }
    }

    @Test func openModeStillServesEveryRequestAsOneUser() async throws {
        let server = try await TestCloudKitServer.start()
        let caller = try await server.exchange("users/caller", method: "GET", database: "public")
        let zones = try await server.exchange("zones/list", method: "GET")
        await server.stop()
        #expect(caller.status == 200)
        #expect(caller.json["userRecordName"]?.stringValue == ServiceConfiguration(tokenSecret: Data()).openModeUserRecordName)
        #expect(zones.status == 200)
    }
}
