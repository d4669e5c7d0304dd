import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 18 (sign-in, sessions, defaults): the sign-in form had no CSRF token, so any page could
    /// sign a visitor's browser in to the attacker's account (login CSRF: the victim's app then saves
    /// into it); a session refreshed its token forever; and a `CloudKitService` built with the
    /// library's default configuration ran in open mode, serving anyone as its one user.
    @Suite("18 sign-in forgery, endless sessions, open by default") struct SessionAndCSRFAttacks {
        @Test func aFormPostedFromAnotherSiteSignsNobodyIn() async throws {
            try await withWebAttackServer { server in
                let attacker = try await server.signedInUser("attacker@example.com")
                let apiToken = try await server.makeBrowserAPIToken(origins: [], signInCallbackURL: "https://app.example.com/done")
                let credentials = [("email", "attacker@example.com"), ("password", attacker.password)]
                // The attacker's page auto-submits the form: no cookie, no field …
                let bare = try await server.exchange(
                    "/signin", body: TestCloudKitServer.formBody([("ckAPIToken", apiToken)] + credentials),
                    headers: ["Content-Type": "application/x-www-form-urlencoded"])
                // … or the field of a form the attacker loaded, while the victim's browser holds its own cookie.
                let attackersForm = try await server.signInForm(apiToken: apiToken)
                let victimsForm = try await server.signInForm(apiToken: apiToken)
                var mixed = attackersForm
                mixed.cookie = victimsForm.cookie
                let crossed = try await server.submit("/signin", form: mixed, fields: credentials)
                var noCookie = attackersForm
                noCookie.cookie = nil
                let fieldOnly = try await server.submit("/signin", form: noCookie, fields: credentials)
                for reply in [bare, crossed, fieldOnly] {
                    #expect(reply.status == 403)
                    #expect(reply.headers["location"] == nil)
                    #expect(!reply.text.contains("ckWebAuthToken"))
                }
                // The genuine form still works, and its cookie is HttpOnly and SameSite=Strict.
                let cookie = try #require(victimsForm.page.headers["set-cookie"])
                #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
                let genuine = try await server.submit("/signin", form: victimsForm, fields: credentials)
                #expect(genuine.status == 303)
            }
        }

        /// Refreshes the session every `step` until it is refused; returns how long it lived and the refusal.
        static func ride(
            _ server: TestCloudKitServer, _ user: TestCloudKitServer.SignedInUser, step: Duration, limit: Int
        ) async throws -> (lived: Duration, refusal: TestCloudKitServer.Reply?) {
            var token = user.webAuthToken
            var lived = Duration.zero
            for _ in 0..<limit {
                let reply = try await server.exchange("zones/list", method: "GET", query: [("ckAPIToken", user.apiToken), ("ckWebAuthToken", token)])
                guard reply.status == 200 else { return (lived, reply) }
                token = try #require(reply.headers["x-apple-cloudkit-web-auth-token"])
                server.advanceClock(by: step)
                lived += step
            }
            return (lived, nil)
        }

        @Test(arguments: [false, true]) func aSessionEndsAtItsAbsoluteLifetimeHoweverOftenItIsRefreshed(_ keepSignedIn: Bool) async throws {
            try await withWebAttackServer { server in
                let user = try await server.signedInUser("ada@example.com", keepSignedIn: keepSignedIn)
                // Refreshed well within each token's lifetime: 20 minutes, or 5 days with "keep me signed in".
                let step: Duration = keepSignedIn ? .seconds(5 * 24 * 3600) : .seconds(20 * 60)
                let (lived, refusal) = try await Self.ride(server, user, step: step, limit: keepSignedIn ? 10 : 100)
                let refused = try #require(refusal, "the session was still alive after \(lived)")
                #expect(lived == (keepSignedIn ? .seconds(30 * 24 * 3600) : .seconds(24 * 3600)))
                #expect(refused.status == 421)
                #expect(refused.serverErrorCode == "AUTHENTICATION_REQUIRED")
                #expect(refused.json["redirectURL"]?.stringValue?.contains("/signin?ckAPIToken=") == true)
            }
        }

        @Test func theLibrarysDefaultConfigurationRequiresCredentials() async throws {
            #expect(ServiceConfiguration(tokenSecret: Data()).authentication.requiresAuthentication)
            // A service built with the default authentication configuration, over a store with accounts.
            let server = try await TestCloudKitServer.start { $0.authentication = AuthenticationConfiguration() }
            let anonymous = try await server.exchange("zones/list", method: "GET")
            let caller = try await server.exchange("users/caller", method: "GET", database: "public")
            await server.stop()
            #expect(anonymous.status == 401)
            #expect(caller.status == 401)
        }
    }
}
