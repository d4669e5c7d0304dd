import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 3: the sign-in page posted the web auth token to whatever window opened it
    /// (`postMessage(…, "*")`) when the API token named no origins and no callback, so any page
    /// that opened the sign-in window for a public app's API token received the user's token.
    @Suite("03 sign-in postMessage to any opener") struct SignInPostMessageAttacks {
        static let jsonHeaders = ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"]

        /// The target origins of every `postMessage` the page would run, from its script.
        static func targets(in page: String) throws -> [String] {
            guard let forEach = page.range(of: ".forEach(function (origin)") else { return [] }
            let start = try #require(page[..<forEach.lowerBound].lastIndex(of: "["))
            let json = String(page[start..<forEach.lowerBound])
            return try JSONDecoder().decode([String].self, from: Data(json.utf8))
        }

        @Test func anOpenerNeverReceivesTheTokenOfAnAPITokenWithoutOriginsOrCallback() async throws {
            try await withWebAttackServer { server in
                let victim = try await server.signedInUser("victim@example.com")
                // The attacker's page opens /signin?ckAPIToken=<the app's public token> and waits for a message.
                let page = try await server.exchange("/signin?ckAPIToken=\(victim.apiToken)", method: "GET")
                #expect(!page.text.contains("<form"))
                #expect(page.text.contains("not configured for browser sign-in"))
                // Even a form posted by hand (with the page's own anti-forgery fields) gets no token back.
                let form = TestCloudKitServer.SignInForm(page: page, apiToken: victim.apiToken)
                let reply = try await server.submit("/signin", form: form, fields: [("email", "victim@example.com"), ("password", victim.password)])
                #expect(!reply.text.contains("postMessage"))
                #expect(!reply.text.contains(#""*""#))
                #expect(try Self.targets(in: reply.text).isEmpty)
                #expect(reply.headers["location"] == nil)
            }
        }

        @Test func theTokenIsPostedOnlyToTheAPITokensAllowedOrigins() async throws {
            try await withWebAttackServer { server in
                let victim = try await server.signedInUser("victim@example.com")
                let apiToken = try await server.makeBrowserAPIToken(origins: ["https://app.example.com", "https://beta.example.com"])
                let form = try await server.signInForm(apiToken: apiToken)
                let reply = try await server.submit("/signin", form: form, fields: [("email", "victim@example.com"), ("password", victim.password)])
                #expect(reply.status == 200)
                #expect(try Self.targets(in: reply.text) == ["https://app.example.com", "https://beta.example.com"])
                #expect(!reply.text.contains(#""*""#))
                #expect(!reply.text.contains("'*'"))
            }
        }

        @Test func scriptsStillSignInWithJSONWhateverTheToken() async throws {
            try await withWebAttackServer { server in
                let user = try await server.signedInUser("script@example.com")
                let body = TestCloudKitServer.formBody([("ckAPIToken", user.apiToken), ("email", "script@example.com"), ("password", user.password)])
                let reply = try await server.exchange("/signin", body: body, headers: Self.jsonHeaders)
                #expect(reply.status == 200)
                #expect(reply.json["userRecordName"]?.stringValue == user.recordName)
            }
        }

        @Test func tokenCreateSaysWhenATokenCannotSignInFromABrowser() async throws {
            let directory = try TemporaryDirectory(prefix: "stratus-attack03")
            defer { directory.remove() }
            let data = directory.path("data")
            #expect(try await WebServeProcess.stratus(["container", "create", "iCloud.com.example.A03"], dataDirectory: data).status == 0)
            let bare = try await WebServeProcess.stratus(["token", "create", "iCloud.com.example.A03"], dataDirectory: data)
            #expect(bare.status == 0)
            #expect(bare.errorOutput.contains("neither --callback nor --origins"))
            let web = try await WebServeProcess.stratus(
                ["token", "create", "iCloud.com.example.A03", "--origins", "https://app.example.com"], dataDirectory: data)
            #expect(web.status == 0)
            #expect(!web.errorOutput.contains("neither --callback nor --origins"))
        }
    }
}
