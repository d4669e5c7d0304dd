import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// The server's own sign-in page: sign in, create an account, hand the token back, limits, sign-out.
@Suite struct SignInTests {
    static func form(_ fields: [(String, String)]) -> Data {
        Data(fields.map { "\($0.0)=\(TestCloudKitServer.percentEncoded($0.1))" }.joined(separator: "&").utf8)
    }

    static let formHeaders = ["Content-Type": "application/x-www-form-urlencoded"]

    @Test func signInRedirectsToTheCallbackWithAWorkingToken() async throws {
        try await withAuthServer { server in
            let user = try await server.signedInUser("ada@example.com")
            let apiToken = try await server.makeAPIToken(signInCallbackURL: "https://app.example.com/done?step=2")
            let reply = try await server.exchange(
                "/signin", body: Self.form([("ckAPIToken", apiToken), ("email", "ADA@example.com"), ("password", user.password), ("keepSignedIn", "on")]),
                headers: Self.formHeaders)
            #expect(reply.status == 303)
            let location = try #require(reply.headers["location"])
            #expect(location.hasPrefix("https://app.example.com/done?step=2&ckWebAuthToken="))
            let encoded = String(location.dropFirst("https://app.example.com/done?step=2&ckWebAuthToken=".count))
            let token = try #require(encoded.removingPercentEncoding)
            let caller = try await server.exchange("users/caller", method: "GET", database: "public", query: [("ckAPIToken", apiToken), ("ckWebAuthToken", token)])
            #expect(caller.json["userRecordName"]?.stringValue == user.recordName)
        }
    }

    @Test func withoutACallbackThePagePostsTheTokenToItsOpener() async throws {
        try await withAuthServer { server in
            let user = try await server.signedInUser("ada@example.com")
            let reply = try await server.exchange(
                "/signin", body: Self.form([("ckAPIToken", user.apiToken), ("email", "ada@example.com"), ("password", user.password)]),
                headers: Self.formHeaders)
            #expect(reply.status == 200)
            #expect(reply.text.contains("window.opener.postMessage({ ckWebAuthToken: token"))
            let json = try await server.exchange(
                "/signin", body: Self.form([("ckAPIToken", user.apiToken), ("email", "ada@example.com"), ("password", user.password)]),
                headers: Self.formHeaders.merging(["Accept": "application/json"]) { $1 })
            #expect(json.json["userRecordName"]?.stringValue == user.recordName)
            #expect((json.json["ckWebAuthToken"]?.stringValue?.count ?? 0) >= 100)
        }
    }

    @Test func wrongPasswordsAreRefusedAndThrottledPerAccount() async throws {
        try await withAuthServer { server in
            let user = try await server.signedInUser("ada@example.com")
            let attempt = { (password: String) in
                try await server.exchange(
                    "/signin", body: Self.form([("ckAPIToken", user.apiToken), ("email", "ada@example.com"), ("password", password)]),
                    headers: Self.formHeaders)
            }
            for _ in 0..<5 {
                let reply = try await attempt("wrong password")
                #expect(reply.status == 401)
                #expect(reply.text.contains("the e-mail address or the password is wrong"))
            }
            let locked = try await attempt(user.password)
            #expect(locked.status == 429)
            #expect(Int(locked.headers["retry-after"] ?? "") ?? 0 > 0)
            server.advanceClock(by: .seconds(16 * 60))
            #expect(try await attempt(user.password).status == 200)
            // Unknown addresses look the same as wrong passwords.
            let unknown = try await server.exchange(
                "/signin", body: Self.form([("ckAPIToken", user.apiToken), ("email", "nobody@example.com"), ("password", "whatever1")]),
                headers: Self.formHeaders)
            #expect(unknown.status == 401)
            #expect(unknown.text.contains("the e-mail address or the password is wrong"))
        }
    }

    @Test func signInAttemptsAreThrottledPerAddress() async throws {
        try await withAuthServer(configure: { $0.authentication.signInLimits.attemptsPerAddress = 3 }) { server in
            let token = try await server.makeAPIToken()
            var statuses: [Int] = []
            for index in 0..<4 {
                let reply = try await server.exchange(
                    "/signin", body: Self.form([("ckAPIToken", token), ("email", "user\(index)@example.com"), ("password", "whatever1")]),
                    headers: Self.formHeaders)
                statuses.append(reply.status)
            }
            #expect(statuses == [401, 401, 401, 429])
        }
    }

    @Test func signUpCreatesAnAccountOnceAndSignOutEndsTheSession() async throws {
        try await withAuthServer { server in
            let token = try await server.makeAPIToken()
            let fields = [
                ("ckAPIToken", token), ("email", "new@example.com"), ("password", "long enough"), ("givenName", "Nova"), ("discoverable", "on"),
            ]
            let created = try await server.exchange(
                "/signup", body: Self.form(fields), headers: Self.formHeaders.merging(["Accept": "application/json"]) { $1 })
            #expect(created.status == 200)
            let webAuthToken = try #require(created.json["ckWebAuthToken"]?.stringValue)
            let account = try await server.admin().user(matching: "new@example.com")
            #expect(account.isDiscoverable)
            #expect(account.nameComponents.givenName == "Nova")
            #expect(account.passwordHash?.hasPrefix("$argon2id$") == true)
            let again = try await server.exchange("/signup", body: Self.form(fields), headers: Self.formHeaders)
            #expect(again.status == 400)
            #expect(again.text.contains("already exists"))
            let short = try await server.exchange(
                "/signup", body: Self.form([("ckAPIToken", token), ("email", "short@example.com"), ("password", "short")]), headers: Self.formHeaders)
            #expect(short.status == 400)

            let query = [("ckAPIToken", token), ("ckWebAuthToken", webAuthToken)]
            #expect(try await server.exchange("zones/list", method: "GET", query: query).status == 200)
            #expect(try await server.exchange("/signout", method: "POST", query: query).status == 200)
            #expect(try await server.exchange("zones/list", method: "GET", query: query).status == 401)
        }
    }

    @Test func theSignInPageNeedsALiveAPIToken() async throws {
        try await withAuthServer { server in
            #expect(try await server.exchange("/signin?ckAPIToken=nope", method: "GET").status == 400)
            let token = try await server.makeAPIToken()
            let page = try await server.exchange("/signin?ckAPIToken=\(token)&create=1", method: "GET")
            #expect(page.status == 200)
            #expect(page.text.contains(#"action="/signup""#))
            #expect(page.headers["x-frame-options"] == "DENY")
            _ = try await server.admin().revokeAPIToken(token)
            #expect(try await server.exchange("/signin?ckAPIToken=\(token)", method: "GET").status == 400)
        }
    }
}
