import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// The server's own sign-in page: sign in, create an account through a verification link, hand the
/// token back, limits, sign-out.
@Suite struct SignInTests {
    static let jsonHeaders = ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"]

    @Test func signInRedirectsToTheCallbackWithAWorkingToken() async throws {
        try await withAuthServer { server in
            let user = try await server.signedInUser("ada@example.com")
            let apiToken = try await server.makeBrowserAPIToken(origins: [], signInCallbackURL: "https://app.example.com/done?step=2")
            let form = try await server.signInForm(apiToken: apiToken)
            let reply = try await server.submit(
                "/signin", form: form, fields: [("email", "ADA@example.com"), ("password", user.password), ("keepSignedIn", "on")])
            #expect(reply.status == 303)
            let location = try #require(reply.headers["location"])
            #expect(location.hasPrefix("https://app.example.com/done?step=2&ckWebAuthToken="))
            let encoded = String(location.dropFirst("https://app.example.com/done?step=2&ckWebAuthToken=".count))
            let token = try #require(encoded.removingPercentEncoding)
            let caller = try await server.exchange(
                "users/caller", method: "GET", database: "public", query: [("ckAPIToken", apiToken), ("ckWebAuthToken", token)])
            #expect(caller.json["userRecordName"]?.stringValue == user.recordName)
        }
    }

    @Test func withoutACallbackThePagePostsTheTokenToTheAllowedOriginsOnly() async throws {
        try await withAuthServer { server in
            let user = try await server.signedInUser("ada@example.com")
            let apiToken = try await server.makeBrowserAPIToken()
            let form = try await server.signInForm(apiToken: apiToken)
            let reply = try await server.submit("/signin", form: form, fields: [("email", "ada@example.com"), ("password", user.password)])
            #expect(reply.status == 200)
            #expect(reply.text.contains("window.opener.postMessage({ ckWebAuthToken: token"))
            #expect(reply.text.contains(#"["https:\/\/app.example.com"]"#))
            // Scripts get JSON, with any token.
            let json = try await server.exchange(
                "/signin", body: TestCloudKitServer.formBody([("ckAPIToken", user.apiToken), ("email", "ada@example.com"), ("password", user.password)]),
                headers: Self.jsonHeaders)
            #expect(json.json["userRecordName"]?.stringValue == user.recordName)
            #expect((json.json["ckWebAuthToken"]?.stringValue?.count ?? 0) >= 100)
        }
    }

    @Test func wrongPasswordsSlowDownTheAccountFromThatAddressWithGrowingDelays() async throws {
        try await withAuthServer { server in
            let user = try await server.signedInUser("ada@example.com")
            let apiToken = try await server.makeBrowserAPIToken()
            let attempt = { (password: String) in
                let form = try await server.signInForm(apiToken: apiToken)
                return try await server.submit("/signin", form: form, fields: [("email", "ada@example.com"), ("password", password)])
            }
            for _ in 0..<3 {
                let reply = try await attempt("wrong password")
                #expect(reply.status == 401)
                #expect(reply.text.contains("the e-mail address or the password is wrong"))
            }
            let waiting = try await attempt(user.password)
            #expect(waiting.status == 429)
            #expect(waiting.headers["retry-after"] == "1")
            server.advanceClock(by: .seconds(1))
            #expect(try await attempt("wrong again").status == 401)
            let longer = try await attempt(user.password)
            #expect(longer.status == 429)
            #expect(longer.headers["retry-after"] == "2")
            server.advanceClock(by: .seconds(2))
            #expect(try await attempt(user.password).status == 200)
            // A success clears the slate.
            #expect(try await attempt("wrong password").status == 401)
            // Unknown addresses look the same as wrong passwords.
            let unknown = try await server.submit(
                "/signin", form: try await server.signInForm(apiToken: apiToken), fields: [("email", "nobody@example.com"), ("password", "whatever1")])
            #expect(unknown.status == 401)
            #expect(unknown.text.contains("the e-mail address or the password is wrong"))
        }
    }

    @Test func signInAttemptsAreThrottledPerAddress() async throws {
        try await withAuthServer(configure: { $0.authentication.signInLimits.attemptsPerAddress = 3 }) { server in
            let token = try await server.makeBrowserAPIToken()
            var statuses: [Int] = []
            for index in 0..<4 {
                let form = try await server.signInForm(apiToken: token)
                let reply = try await server.submit("/signin", form: form, fields: [("email", "user\(index)@example.com"), ("password", "whatever1")])
                statuses.append(reply.status)
            }
            #expect(statuses == [401, 401, 401, 429])
        }
    }

    @Test func signUpSendsALinkThatMakesAVerifiedAccountAndSignOutEndsTheSession() async throws {
        let inbox = VerificationInbox()
        try await withAuthServer(configure: { $0.authentication.verificationDelivery = inbox.delivery }) { server in
            let token = try await server.makeBrowserAPIToken()
            let fields = [("ckAPIToken", token), ("email", "New@example.com"), ("givenName", "Nova"), ("discoverable", "on")]
            let sent = try await server.exchange("/signup", body: TestCloudKitServer.formBody(fields), headers: Self.jsonHeaders)
            #expect(sent.status == 202)
            #expect(sent.json["status"]?.stringValue == "verificationSent")
            #expect(try await server.admin().users().isEmpty)  // nothing is made before the link is followed
            let message = try #require(inbox.messages.last)
            #expect(message.emailAddress == "new@example.com")
            let target = try #require(VerificationInbox.target(of: message.link))
            #expect(message.link == "http://127.0.0.1:\(server.http.port)" + target)

            let form = try await server.signInForm(apiToken: token, path: target)
            #expect(form.page.status == 200)
            #expect(form.page.text.contains(#"action="/verify""#))
            let ticket = try #require(TestCloudKitServer.hiddenField("ticket", in: form.page.text))
            let short = try await server.submit("/verify", form: form, fields: [("ticket", ticket), ("password", "short")])
            #expect(short.status == 400)
            let created = try await server.submit(
                "/verify", form: form, fields: [("ticket", ticket), ("password", "long enough")], headers: ["Accept": "application/json"])
            #expect(created.status == 200)
            let webAuthToken = try #require(created.json["ckWebAuthToken"]?.stringValue)
            let account = try await server.admin().user(matching: "new@example.com")
            #expect(account.isDiscoverable)
            #expect(account.isEmailVerified)
            #expect(account.nameComponents.givenName == "Nova")
            #expect(account.passwordHash?.hasPrefix("$argon2id$") == true)
            // The link is spent: the account exists now.
            let again = try await server.signInForm(apiToken: token, path: target)
            #expect(again.page.text.contains("already exists"))

            let query = [("ckAPIToken", token), ("ckWebAuthToken", webAuthToken)]
            #expect(try await server.exchange("zones/list", method: "GET", query: query).status == 200)
            #expect(try await server.exchange("/signout", method: "POST", query: query).status == 200)
            #expect(try await server.exchange("zones/list", method: "GET", query: query).status == 401)
        }
    }

    @Test func theSignInPageNeedsALiveAPIToken() async throws {
        try await withAuthServer { server in
            #expect(try await server.exchange("/signin?ckAPIToken=nope", method: "GET").status == 400)
            let token = try await server.makeBrowserAPIToken()
            let page = try await server.exchange("/signin?ckAPIToken=\(token)&create=1", method: "GET")
            #expect(page.status == 200)
            #expect(page.text.contains(#"action="/signup""#))
            #expect(page.headers["x-frame-options"] == "DENY")
            #expect(page.headers["referrer-policy"] == "no-referrer")
            _ = try await server.admin().revokeAPIToken(token)
            #expect(try await server.exchange("/signin?ckAPIToken=\(token)", method: "GET").status == 400)
        }
    }

    @Test func withSignUpOffThePageOffersNoAccountAndSignUpIsRefused() async throws {
        let inbox = VerificationInbox()
        try await withAuthServer(configure: {
            $0.authentication.allowsSignUp = false
            $0.authentication.verificationDelivery = inbox.delivery
        }) { server in
            let token = try await server.makeBrowserAPIToken()
            let form = try await server.signInForm(apiToken: token, create: true)
            #expect(form.page.text.contains(#"action="/signin""#))
            #expect(!form.page.text.contains("Create an account"))
            let refused = try await server.submit("/signup", form: form, fields: [("email", "new@example.com")])
            #expect(refused.status == 400)
            #expect(refused.text.contains("does not allow creating accounts"))
            #expect(inbox.messages.isEmpty)
        }
    }
}
