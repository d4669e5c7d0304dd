import Foundation
import StratusConsole
import StratusServer
import StratusTesting
import Synchronization
import Testing

/// The console's door (Documentation/0022-console.md, "Authentication"; the threat model's console
/// section): each rule, and the attack it stops, against a live server on loopback.
@Suite struct ConsoleSecurityTests {
    @Test func anAdministratorsSessionCookieIsHttpOnlyStrictAndScopedToTheConsole() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let reply = try await server.send(
            "POST", "/console/api/signin", body: ConsoleTestServer.json(["email": "Root@Example.com", "password": ConsoleTestServer.adminPassword]))
        #expect(reply.status == 200)
        let cookie = try #require(reply.header("Set-Cookie"))
        #expect(cookie.hasPrefix("stratus_console="))
        #expect(cookie.contains("; HttpOnly"))
        #expect(cookie.contains("; SameSite=Strict"))
        #expect(cookie.contains("; Path=/console"))
        #expect(!cookie.contains("Secure"), "plain HTTP on loopback: a Secure cookie would never come back")
        #expect((try reply.json()["csrfToken"] as? String)?.isEmpty == false)
    }

    @Test func theSessionCookieIsSecureWhenTheServerIsReachedOverTLS() async throws {
        let server = try await ConsoleTestServer.start { $0.secureCookies = true }
        defer { Task { await server.stop() } }
        let reply = try await server.send(
            "POST", "/console/api/signin", body: ConsoleTestServer.json(["email": ConsoleTestServer.adminEmail, "password": ConsoleTestServer.adminPassword]))
        #expect(try #require(reply.header("Set-Cookie")).contains("; Secure"))
    }

    @Test func anAppUserCannotSignInToTheConsoleNorUseAppCredentialsOnIt() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let ada = try await server.cloudKit.signedInUser("ada@example.com")
        let signIn = try await server.send("POST", "/console/api/signin", body: ConsoleTestServer.json(["email": "ada@example.com", "password": ada.password]))
        #expect(signIn.status == 401)
        #expect(signIn.header("Set-Cookie") == nil)
        let path =
            "/console/api/tokens?ckAPIToken=\(ada.apiToken)&ckWebAuthToken=\(ada.webAuthToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
        #expect(try await server.send("GET", path).status == 401)
        #expect(try await server.send("GET", "/console/api/users", cookie: "forged-cookie-value").status == 401)
    }

    @Test func aWrongPasswordAndAnUnknownAddressGetTheSameRefusal() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let wrong = try await server.send(
            "POST", "/console/api/signin", body: ConsoleTestServer.json(["email": ConsoleTestServer.adminEmail, "password": "wrong password!"]))
        let unknown = try await server.send(
            "POST", "/console/api/signin", body: ConsoleTestServer.json(["email": "nobody@example.com", "password": "wrong password!"]))
        #expect(wrong.status == 401 && unknown.status == 401)
        #expect(try wrong.json()["reason"] as? String == unknown.json()["reason"] as? String)
    }

    @Test func aChangeWithoutTheSessionsCSRFTokenIsRefusedAndChangesNothing() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let session = try await server.signIn()
        let body = ConsoleTestServer.json(["container": TestCloudKitServer.container, "environment": "development", "name": "forged"])
        let missing = try await server.send("POST", "/console/api/tokens", body: body, cookie: session.cookie)
        let wrong = try await server.send("POST", "/console/api/tokens", body: body, cookie: session.cookie, csrf: "not-the-token")
        let otherSession = try await server.signIn()
        let another = try await server.send("POST", "/console/api/tokens", body: body, cookie: session.cookie, csrf: otherSession.csrf)
        let form = try await server.send("POST", "/console/api/tokens", body: body, cookie: session.cookie, csrf: session.csrf, contentType: "text/plain")
        for reply in [missing, wrong, another, form] {
            #expect(reply.status == 403)
            #expect(try reply.json()["serverErrorCode"] as? String == "ACCESS_DENIED")
        }
        #expect(try await server.cloudKit.admin().apiTokens(container: nil).isEmpty)
        let database = try await server.send(
            "POST", "/console/api/database/\(TestCloudKitServer.container)/development/public/records/modify", body: "{}", cookie: session.cookie)
        #expect(database.status == 403)
        let signOut = try await server.send("POST", "/console/api/signout", body: "{}", cookie: session.cookie)
        #expect(signOut.status == 403)
        #expect(try await server.send("GET", "/console/api/session", cookie: session.cookie).status == 200, "the refused sign-out left the session alone")
    }

    @Test func aConsoleRequestWithoutASessionIsRefused() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        for path in [
            "/console/api/session", "/console/api/tokens", "/console/api/users", "/console/api/audit", "/console/api/metrics", "/console/api/containers",
        ] {
            let reply = try await server.send("GET", path)
            #expect(reply.status == 401, "\(path)")
            #expect(try reply.json()["serverErrorCode"] as? String == "AUTHENTICATION_REQUIRED")
        }
        let change = try await server.send("POST", "/console/api/tokens", body: "{}", csrf: "anything")
        #expect(change.status == 401)
    }

    @Test func signInIsThrottledPerAddressAndAccountEvenForTheRightPassword() async throws {
        let server = try await ConsoleTestServer.start { configuration in
            configuration.signInLimits.freeFailures = 2
            configuration.signInLimits.firstDelay = .seconds(600)
        }
        defer { Task { await server.stop() } }
        let wrong = ConsoleTestServer.json(["email": ConsoleTestServer.adminEmail, "password": "guess guess guess"])
        #expect(try await server.send("POST", "/console/api/signin", body: wrong).status == 401)
        #expect(try await server.send("POST", "/console/api/signin", body: wrong).status == 401)
        let throttled = try await server.send("POST", "/console/api/signin", body: wrong)
        #expect(throttled.status == 429)
        #expect(Int(throttled.header("Retry-After") ?? "") ?? 0 > 0)
        let right = ConsoleTestServer.json(["email": ConsoleTestServer.adminEmail, "password": ConsoleTestServer.adminPassword])
        #expect(try await server.send("POST", "/console/api/signin", body: right).status == 429)
    }

    @Test func signingOutOrRemovingTheAdministratorEndsTheSession() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let first = try await server.signIn()
        #expect(try await server.send("POST", "/console/api/signout", body: "{}", cookie: first.cookie, csrf: first.csrf).status == 200)
        #expect(try await server.send("GET", "/console/api/session", cookie: first.cookie).status == 401)
        let second = try await server.signIn()
        _ = try await server.administration.remove(ConsoleTestServer.adminEmail)
        #expect(try await server.send("GET", "/console/api/session", cookie: second.cookie).status == 401)
    }

    @Test func aSessionStopsWorkingAfterItsLifetime() async throws {
        let clock = Clock()
        let server = try await ConsoleTestServer.start { configuration in
            configuration.sessionLifetime = .seconds(60)
            configuration.now = { clock.now() }
        }
        defer { Task { await server.stop() } }
        let session = try await server.signIn()
        #expect(try await server.send("GET", "/console/api/session", cookie: session.cookie).status == 200)
        clock.advance(by: 61_000)
        #expect(try await server.send("GET", "/console/api/session", cookie: session.cookie).status == 401)
    }

    @Test func noOtherOriginMayReadTheConsolesAnswers() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let session = try await server.signIn()
        let reply = try await server.send("GET", "/console/api/session", cookie: session.cookie, headers: ["Origin": "https://evil.example"])
        #expect(reply.status == 200)
        #expect(reply.header("Access-Control-Allow-Origin") == nil)
        #expect(reply.header("X-Frame-Options") == "DENY")
        #expect(reply.header("Cache-Control") == "no-store")
        #expect(reply.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
    }

    @Test func everyChangeLandsInTheAuditLogWithWhoWhatAndWhen() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let session = try await server.signIn()
        let body = ConsoleTestServer.json(["container": TestCloudKitServer.container, "environment": "development", "name": "web"])
        let created = try await server.send("POST", "/console/api/tokens", body: body, cookie: session.cookie, csrf: session.csrf)
        let prefix = try #require(try created.json()["prefix"] as? String)
        let token = try #require(try created.json()["token"] as? String)
        #expect(try await server.send("POST", "/console/api/tokens/\(prefix)/revoke", body: "{}", cookie: session.cookie, csrf: session.csrf).status == 200)
        let audit = try await server.send("GET", "/console/api/audit", cookie: session.cookie)
        let entries = try #require(try JSONSerialization.jsonObject(with: audit.body) as? [[String: Any]])
        #expect(entries.map { $0["action"] as? String } == ["tokens.revoke", "tokens.create", "console.signin"])
        #expect(entries.allSatisfy { $0["administrator"] as? String == ConsoleTestServer.adminEmail && ($0["at"] as? Int ?? 0) > 0 })
        #expect(!audit.text.contains(token), "the audit log never holds a secret")
    }
}

/// A clock tests move by hand.
final class Clock: Sendable {
    private let value = Mutex<Int64>(1_750_000_000_000)
    func now() -> Int64 { value.withLock { $0 } }
    func advance(by milliseconds: Int64) { value.withLock { $0 += milliseconds } }
}
