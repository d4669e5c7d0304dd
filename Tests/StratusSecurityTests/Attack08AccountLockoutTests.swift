import Foundation
import StratusHTTP
import StratusServer
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 8: five wrong passwords locked an account for 15 minutes for everyone, so anyone
    /// who knew an address locked its owner out; and behind a reverse proxy every user shared the
    /// proxy's address bucket (`X-Forwarded-For` was not read — nor may it be, from anyone but a
    /// configured proxy, or clients pick their own address).
    @Suite("08 anyone can lock any account") struct AccountLockoutAttacks {
        /// A script's sign-in (JSON, no form needed) from `source`, optionally through a proxy that forwards for `client`.
        static func signIn(
            _ server: TestCloudKitServer, apiToken: String, email: String, password: String, from source: String? = nil,
            forwardedFor client: String? = nil
        ) async throws -> TestCloudKitServer.Reply {
            var headers = [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")]
            if let client { headers.append(("X-Forwarded-For", client)) }
            let body = TestCloudKitServer.formBody([("ckAPIToken", apiToken), ("email", email), ("password", password)])
            return try await server.rawExchange("POST", "/signin", host: "127.0.0.1:\(server.http.port)", headers: headers, body: body, from: source)
        }

        @Test func wrongPasswordsFromAnotherAddressDoNotLockTheOwnerOut() async throws {
            try await withWebAttackServer { server in
                let victim = try await server.signedInUser("victim@example.com")
                var attacker: [Int] = []
                for _ in 0..<12 {
                    let reply = try await Self.signIn(server, apiToken: victim.apiToken, email: "victim@example.com", password: "guess", from: "127.0.0.2")
                    attacker.append(reply.status)
                }
                #expect(attacker.prefix(3).allSatisfy { $0 == 401 })
                #expect(attacker.contains(429))  // the attacker is slowed down …
                let owner = try await Self.signIn(server, apiToken: victim.apiToken, email: "victim@example.com", password: victim.password)
                #expect(owner.status == 200, "\(owner.text)")  // … the owner, elsewhere, is not
            }
        }

        @Test func theSlowdownGrowsAndIsCappedRatherThanALock() async throws {
            try await withWebAttackServer(configure: { $0.authentication.signInLimits.maximumDelay = .seconds(4) }) { server in
                let victim = try await server.signedInUser("victim@example.com")
                let attempt = { (password: String) in
                    try await Self.signIn(server, apiToken: victim.apiToken, email: "victim@example.com", password: password)
                }
                for _ in 0..<3 { #expect(try await attempt("guess").status == 401) }
                var waits: [String] = []
                for _ in 0..<4 {
                    let refused = try await attempt("guess")
                    #expect(refused.status == 429)
                    let wait = refused.headers["retry-after"] ?? ""
                    waits.append(wait)
                    server.advanceClock(by: .seconds(Int64(wait) ?? 0))
                    #expect(try await attempt("guess").status == 401)
                }
                #expect(waits == ["1", "2", "4", "4"])
                // Never a lock: after the wait, the right password works even from the same address.
                server.advanceClock(by: .seconds(4))
                #expect(try await attempt(victim.password).status == 200)
            }
        }

        @Test func behindATrustedProxyEveryClientHasItsOwnLimits() async throws {
            try await withWebAttackServer(configure: {
                $0.trustedProxies = (try? TrustedProxies(["127.0.0.1"])) ?? TrustedProxies()
                $0.authentication.signInLimits.attemptsPerAddress = 6
            }) { server in
                let victim = try await server.signedInUser("victim@example.com")
                var attacker: [Int] = []
                for index in 0..<8 {
                    // Through the proxy, from 203.0.113.9, on the victim and on other accounts.
                    let email = index.isMultiple(of: 2) ? "victim@example.com" : "other\(index)@example.com"
                    let reply = try await Self.signIn(server, apiToken: victim.apiToken, email: email, password: "guess", forwardedFor: "203.0.113.9")
                    attacker.append(reply.status)
                }
                #expect(attacker.suffix(2) == [429, 429])  // the attacker's own address bucket is spent
                let owner = try await Self.signIn(
                    server, apiToken: victim.apiToken, email: "victim@example.com", password: victim.password, forwardedFor: "198.51.100.7")
                #expect(owner.status == 200, "\(owner.text)")  // the owner, another client of the same proxy, is untouched
            }
        }

        @Test func aSpoofedForwardedForFromAnUntrustedPeerIsIgnored() async throws {
            try await withWebAttackServer(configure: {
                $0.trustedProxies = (try? TrustedProxies(["127.0.0.1"])) ?? TrustedProxies()
                $0.authentication.signInLimits.attemptsPerAddress = 5
            }) { server in
                let token = try await server.makeAPIToken()
                var statuses: [Int] = []
                for index in 0..<7 {
                    // 127.0.0.2 is no proxy: a fresh X-Forwarded-For on every try must not buy fresh attempts.
                    let reply = try await Self.signIn(
                        server, apiToken: token, email: "user\(index)@example.com", password: "guess", from: "127.0.0.2",
                        forwardedFor: "198.51.100.\(index)")
                    statuses.append(reply.status)
                }
                #expect(statuses == [401, 401, 401, 401, 401, 429, 429])
            }
        }
    }
}
