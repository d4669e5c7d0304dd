import Foundation
import StratusConsole
import StratusHTTP
import StratusServer
import StratusTesting
import Testing

/// The review's findings, each closed: refusals carry the pages' headers, the console can be kept
/// to loopback, sign-in has a limit per account across addresses, expired sessions are swept
/// (the store's part on both back ends: `ConsoleStoreTests`).
@Suite struct ConsoleHardeningTests {
    @Test func refusalsAndErrorsCarryTheSameSecurityHeadersAsThePages() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let session = try await server.signIn()
        let replies = [
            try await server.send("GET", "/console/api/users"),  // no session: 401 from the gate
            try await server.send("POST", "/console/api/tokens", body: "{}", cookie: "unknown"),  // refused before the body
            try await server.send("POST", "/console/api/tokens", body: "{}", cookie: session.cookie),  // no CSRF token: 403
            try await server.send("GET", "/console/api/usage/iCloud.nope/development", cookie: session.cookie),  // 404 from the handler
            try await server.send("GET", "/console/api/nothing-here", cookie: session.cookie),  // no route
        ]
        for reply in replies {
            #expect(reply.status >= 400)
            #expect(reply.header("Content-Security-Policy")?.contains("default-src 'self'") == true, "\(reply.status) \(reply.text)")
            #expect(reply.header("X-Frame-Options") == "DENY")
            #expect(reply.header("Cache-Control") == "no-store")
            #expect(reply.header("X-Content-Type-Options") == "nosniff")
        }
        let api = try await server.cloudKit.exchange("zones/list", "{}", database: "public")
        #expect(api.headers["content-security-policy"] == nil, "the CloudKit API's answers are not the console's")
    }

    @Test func aConsoleKeptToLoopbackAnswersARemoteAddressAsIfItWereAbsent() async throws {
        let server = try await ConsoleTestServer.start { $0.loopbackOnly = true }
        defer { Task { await server.stop() } }
        // Loopback (the test's own socket) still works.
        let session = try await server.signIn()
        #expect(try await server.send("GET", "/console/api/users", cookie: session.cookie).status == 200)
        // The attack: a request from elsewhere, with a valid session cookie, as the server sees it
        // (the socket's peer or the client a trusted proxy names) — the guard runs before routing.
        let guardian = server.console.guard
        for address in ["203.0.113.7", "2001:db8::1", "::ffff:198.51.100.2"] {
            var request = HTTPRequest(method: .get, path: "/console/api/users", headers: ["Cookie": "stratus_console=\(session.cookie)"])
            request.remoteAddress = address
            let refusal = try #require(try guardian.prepare(&request), "\(address)")
            #expect(refusal.status.code == 404)
        }
        var noAddress = HTTPRequest(method: .get, path: "/console")
        #expect(try guardian.prepare(&noAddress)?.status.code == 404, "an unknown peer is not loopback")
        for address in ["127.0.0.1", "::1", "127.8.9.10"] {
            var request = HTTPRequest(method: .get, path: "/console/api/users")
            request.remoteAddress = address
            #expect(try guardian.prepare(&request) == nil, "\(address)")
        }
        var api = HTTPRequest(method: .post, path: "/database/1/iCloud.x/development/public/zones/list")
        api.remoteAddress = "203.0.113.7"
        #expect(try guardian.prepare(&api) == nil, "the CloudKit API stays reachable")
        // A change's head check runs before any middleware and before the body is read: a remote
        // peer without a cookie must get the same 404 there, not the 401 that says a console exists.
        var router = Router()
        router.use(server.console.guard)
        server.console.register(on: &router)
        var head = HTTPRequest(method: .post, path: "/console/api/tokens", headers: ["Content-Length": "2"])
        head.remoteAddress = "203.0.113.7"
        guard case .refuse(let early) = router.admit(head) else {
            Issue.record("a remote change was admitted to have its body read")
            return
        }
        #expect(early.status.code == 404)
        #expect(early.headers["Content-Security-Policy"] != nil)
        head.remoteAddress = "127.0.0.1"
        head.headers.replaceOrAdd("X-Forwarded-For", "203.0.113.7")
        guard case .buffer = router.admit(head) else {
            Issue.record("a local proxy's request is left to routing, where the client's address is known")
            return
        }
        // Off by default.
        let open = try await ConsoleTestServer.start()
        defer { Task { await open.stop() } }
        var remote = HTTPRequest(method: .get, path: "/console")
        remote.remoteAddress = "203.0.113.7"
        #expect(try open.console.guard.prepare(&remote) == nil)
    }

    @Test func signInFailuresOnOneAccountAreLimitedAcrossAllAddresses() {
        var limits = SignInLimits()
        limits.failuresPerAccount = 3
        limits.accountWindow = .seconds(3600)
        let throttle = SignInThrottle(limits: limits)
        // Each address is fresh, so only the account's own limit can stop the fourth.
        for index in 0..<3 {
            #expect(throttle.admit(account: "root@example.com", address: "203.0.113.\(index)", now: 1000) == nil)
        }
        let wait = throttle.admit(account: "root@example.com", address: "198.51.100.9", now: 2000)
        #expect(wait == 3599)
        #expect(throttle.admit(account: "other@example.com", address: "198.51.100.9", now: 2000) == nil, "other accounts are not held")
        #expect(throttle.admit(account: "root@example.com", address: "198.51.100.9", now: 1000 + 3_600_000) == nil, "the window ends")
        // A success is not a failure: it gives its attempt back.
        let fresh = SignInThrottle(limits: limits)
        for _ in 0..<5 {
            #expect(fresh.admit(account: "root@example.com", address: "127.0.0.1", now: 1000) == nil)
            fresh.recordSuccess(account: "root@example.com", address: "127.0.0.1")
        }
        // App sign-in sets no such limit; the console does.
        #expect(SignInLimits().failuresPerAccount == nil)
        #expect(ConsoleConfiguration().signInLimits.failuresPerAccount == 100)
    }

    @Test func aSignInSweepsTheSessionsThatExpired() async throws {
        let clock = Clock()
        let server = try await ConsoleTestServer.start { configuration in
            configuration.now = { clock.now() }
        }
        defer { Task { await server.stop() } }
        let first = try await server.signIn()
        clock.advance(by: 13 * 3600 * 1000)
        _ = try await server.signIn()
        let hash = AccountAdministration.tokenHash(first.cookie)
        #expect(try await server.store.readConsole { try $0.consoleSession(tokenHash: hash) } == nil, "the 13-hour-old session is gone")
    }

}
