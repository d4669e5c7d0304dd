import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// The Users page: disabling an account stops its sessions and its sign-in, one session ends
/// alone, and usage counts each user's requests — through ``AccountAdministration``.
@Suite struct ConsoleUsersTests {
    static let container = TestCloudKitServer.container

    private func disable(
        _ server: ConsoleTestServer, _ session: ConsoleTestServer.Session, _ user: String, _ disabled: Bool
    ) async throws
        -> ConsoleTestServer.Reply
    {
        try await server.send(
            "POST", "/console/api/users/\(user)/disabled", body: #"{"disabled":\#(disabled)}"#, cookie: session.cookie, csrf: session.csrf)
    }

    @Test func aDisabledUsersTokenReplayedIsRefusedWithTheReasonAndSignInIsRefusedUntilEnabled() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let ada = try await server.cloudKit.signedInUser("ada@example.com")
        let session = try await server.signIn()
        #expect(try await server.cloudKit.exchange("zones/list", "{}", query: ada.query).status == 200)
        let disabled = try await disable(server, session, "ada@example.com", true)
        #expect(disabled.status == 200)
        #expect(try disabled.json()["disabled"] as? Bool == true)
        // The attack: the token Ada (or whoever stole it) held before is replayed.
        let replayed = try await server.cloudKit.exchange("zones/list", "{}", query: ada.query)
        #expect(replayed.status == 403)
        #expect(replayed.serverErrorCode == "ACCESS_DENIED")
        #expect(replayed.text.contains("disabled"))
        // The right password opens nothing, and no session opens for the account by any path.
        let signIn = try await server.cloudKit.exchange(
            "/signin", body: TestCloudKitServer.formBody([("ckAPIToken", ada.apiToken), ("email", "ada@example.com"), ("password", ada.password)]),
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"])
        #expect(signIn.status == 403)
        #expect(signIn.text.contains("disabled") && !signIn.text.contains("ckWebAuthToken"))
        await #expect(throws: ServiceError.self) {
            _ = try await server.cloudKit.admin().webAuthToken(for: "ada@example.com", container: Self.container)
        }
        let users = try await server.send("GET", "/console/api/users", cookie: session.cookie)
        #expect(users.text.contains(#""disabled":true"#))
        // Enabled again: the old sessions stay signed out (401), a new sign-in works.
        #expect(try await disable(server, session, "ada@example.com", false).status == 200)
        #expect(try await server.cloudKit.exchange("zones/list", "{}", query: ada.query).status == 401)
        let again = try await server.cloudKit.exchange(
            "/signin", body: TestCloudKitServer.formBody([("ckAPIToken", ada.apiToken), ("email", "ada@example.com"), ("password", ada.password)]),
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"])
        #expect(again.status == 200 && again.text.contains("ckWebAuthToken"))
        let audit = try await server.send("GET", "/console/api/audit", cookie: session.cookie)
        #expect(audit.text.contains("users.disable") && audit.text.contains("users.enable"))
    }

    @Test func disablingIsAChangeThatNeedsTheCSRFTokenAndASession() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let ada = try await server.cloudKit.signedInUser("ada@example.com")
        let session = try await server.signIn()
        let forged = try await server.send("POST", "/console/api/users/ada@example.com/disabled", body: #"{"disabled":true}"#, cookie: session.cookie)
        #expect(forged.status == 403)
        let anonymous = try await server.send("POST", "/console/api/users/ada@example.com/disabled", body: #"{"disabled":true}"#, csrf: session.csrf)
        #expect(anonymous.status == 401)
        // An app user's own credentials open nothing in the console.
        let appUser = try await server.send(
            "POST", "/console/api/users/ada@example.com/disabled?ckAPIToken=\(ada.apiToken)", body: #"{"disabled":true}"#, csrf: session.csrf)
        #expect(appUser.status == 401)
        #expect(try await server.cloudKit.exchange("zones/list", "{}", query: ada.query).status == 200, "nothing was disabled")
        #expect(try await disable(server, session, "nobody@example.com", true).status == 404)
    }

    @Test func oneSessionOfAUserEndsAndTheOthersKeepWorking() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let ada = try await server.cloudKit.signedInUser("ada@example.com")
        let laptop = try await server.cloudKit.admin().webAuthToken(for: "ada@example.com", container: Self.container)
        let session = try await server.signIn()
        let listed = try await server.send("GET", "/console/api/users/ada@example.com/sessions", cookie: session.cookie)
        let sessions = try #require(try JSONSerialization.jsonObject(with: listed.body) as? [[String: Any]])
        #expect(sessions.count == 2)
        #expect(!listed.text.contains(ada.webAuthToken) && !listed.text.contains(laptop), "sessions are listed, never their tokens")
        // Which session is the phone's: end each in turn and see whose token stops.
        let first = try #require(sessions.first?["sessionID"] as? String)
        let ended = try await server.send(
            "POST", "/console/api/users/ada@example.com/sessions/\(first)/signout", body: "{}", cookie: session.cookie, csrf: session.csrf)
        #expect(ended.status == 200)
        let phone = try await server.cloudKit.exchange("zones/list", "{}", query: ada.query).status
        let other = try await server.cloudKit.exchange("zones/list", "{}", query: [("ckAPIToken", ada.apiToken), ("ckWebAuthToken", laptop)]).status
        #expect([phone, other].sorted() == [200, 401], "exactly one of the two sessions ended")
        let again = try await server.send(
            "POST", "/console/api/users/ada@example.com/sessions/\(first)/signout", body: "{}", cookie: session.cookie, csrf: session.csrf)
        #expect(again.status == 404, "a session already signed out is not live")
        #expect(try await server.send("GET", "/console/api/audit", cookie: session.cookie).text.contains("users.signout-session"))
    }

    @Test func aSessionOfAnotherUserCannotBeEndedInThisUsersName() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let ada = try await server.cloudKit.signedInUser("ada@example.com")
        _ = try await server.cloudKit.signedInUser("bob@example.com")
        let session = try await server.signIn()
        let adas = try await server.cloudKit.admin().sessions(ofUserMatching: "ada@example.com").sessions
        let id = try #require(adas.first?.sessionID)
        let wrongUser = try await server.send(
            "POST", "/console/api/users/bob@example.com/sessions/\(id)/signout", body: "{}", cookie: session.cookie, csrf: session.csrf)
        #expect(wrongUser.status == 404)
        #expect(try await server.cloudKit.exchange("zones/list", "{}", query: ada.query).status == 200)
    }

    @Test func usageCountsEachUsersOwnRequestsButNotTheConsoles() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let ada = try await server.cloudKit.signedInUser("ada@example.com")
        _ = try await server.cloudKit.signedInUser("bob@example.com")
        for _ in 0..<3 { #expect(try await server.cloudKit.exchange("zones/list", "{}", query: ada.query).status == 200) }
        let session = try await server.signIn()
        _ = try await server.send(
            "POST", "/console/api/database/\(Self.container)/development/private/zones/list?user=ada@example.com", body: "{}",
            cookie: session.cookie, csrf: session.csrf)
        let reply = try await server.send("GET", "/console/api/usage/\(Self.container)/development", cookie: session.cookie)
        let lines = try #require(try reply.json()["lines"] as? [[String: Any]])
        #expect(lines.first { $0["user"] as? String == "ada@example.com" }?["requests"] as? Int == 3)
        #expect(lines.first { $0["user"] as? String == "bob@example.com" }?["requests"] as? Int == 0)
        let production = try await server.send("GET", "/console/api/usage/\(Self.container)/production", cookie: session.cookie)
        let productionLines = try #require(try production.json()["lines"] as? [[String: Any]])
        #expect(productionLines.first { $0["user"] as? String == "ada@example.com" }?["requests"] as? Int == 0)
    }
}
