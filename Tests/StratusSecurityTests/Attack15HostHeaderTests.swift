import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 15: without `--public-url`, the sign-in link of a 421, courier and asset URLs were
    /// built from the request's `Host` header, so `Host: evil.example` made the server hand out a
    /// sign-in link to evil.example (a phishing page collecting passwords) and asset and push URLs
    /// that leak tokens there.
    @Suite("15 URLs from the Host header") struct HostHeaderAttacks {
        static let evil = "evil.example"

        /// Every URL in a reply's JSON body that says where to go.
        static func urls(in reply: TestCloudKitServer.Reply) -> [String] {
            var found: [String] = []
            var rest = Substring(reply.text)
            while let start = rest.range(of: "http")?.lowerBound {
                let url = rest[start...].prefix { $0 != "\"" }
                found.append(String(url).replacingOccurrences(of: #"\/"#, with: "/"))
                rest = rest[url.endIndex...]
            }
            return found
        }

        @Test func aForgedHostNeverBecomesTheBaseOfAURLTheServerHandsOut() async throws {
            let inbox = VerificationInbox()
            try await withWebAttackServer(configure: { $0.authentication.verificationDelivery = inbox.delivery }) { server in
                let own = "http://127.0.0.1:\(server.http.port)"
                let user = try await server.signedInUser("ada@example.com")
                let query = { (items: [(String, String)]) in "?" + items.map { "\($0.0)=\(TestCloudKitServer.percentEncoded($0.1))" }.joined(separator: "&") }
                let json = [("Content-Type", "text/plain")]

                // 421 redirectURL (sign-in link).
                let signIn = try await server.rawExchange(
                    "GET", TestCloudKitServer.path("users/caller", database: "public") + query([("ckAPIToken", user.apiToken)]), host: Self.evil)
                #expect(signIn.status == 421)
                // Courier URL.
                let courier = try await server.rawExchange(
                    "POST", "/device/1/\(TestCloudKitServer.container)/development/tokens/create" + query(user.query), host: Self.evil,
                    headers: json, body: Data(#"{"apnsEnvironment":"development"}"#.utf8))
                #expect(courier.status == 200, "\(courier.text)")
                // Asset upload URL.
                let upload = try await server.rawExchange(
                    "POST", TestCloudKitServer.path("assets/upload", database: "private") + query(user.query), host: Self.evil, headers: json,
                    body: Data(#"{"tokens":[{"recordName":"photo","recordType":"Photo","fieldName":"image"}]}"#.utf8))
                #expect(upload.status == 200, "\(upload.text)")
                let urls = [signIn, courier, upload].flatMap { Self.urls(in: $0) }
                #expect(urls.count == 3, "\(urls)")
                for url in urls {
                    #expect(url.hasPrefix(own + "/"), "\(url)")
                    #expect(!url.contains(Self.evil))
                }

                // The verification link of a sign-up.
                let token = try await server.makeBrowserAPIToken()
                let body = TestCloudKitServer.formBody([("ckAPIToken", token), ("email", "new@example.com")])
                let signUp = try await server.rawExchange(
                    "POST", "/signup", host: Self.evil,
                    headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")], body: body)
                #expect(signUp.status == 202)
                let link = try #require(inbox.messages.last?.link)
                #expect(link.hasPrefix(own + "/verify?"), "\(link)")
            }
        }

        @Test func theConfiguredPublicURLWinsOverAnyHost() async throws {
            try await withWebAttackServer(configure: { $0.publicBaseURL = "https://cloud.example.com/" }) { server in
                let token = try await server.makeAPIToken()
                let reply = try await server.rawExchange(
                    "GET", TestCloudKitServer.path("users/caller", database: "public") + "?ckAPIToken=\(token)", host: Self.evil)
                #expect(reply.json["redirectURL"]?.stringValue == "https://cloud.example.com/signin?ckAPIToken=\(token)")
            }
        }

        @Test func anOpenModeServerRefusesTheForgedHostOutright() async throws {
            try await withWebAttackServer(open: true) { server in
                let reply = try await server.rawExchange(
                    "POST", "/device/1/\(TestCloudKitServer.container)/development/tokens/create", host: Self.evil,
                    headers: [("Content-Type", "text/plain")], body: Data(#"{"apnsEnvironment":"development"}"#.utf8))
                #expect(reply.status == 403)
                #expect(!reply.text.contains(Self.evil + "/"))
                // A loopback Host is kept, so a page on localhost keeps its origin.
                let local = try await server.rawExchange(
                    "POST", "/device/1/\(TestCloudKitServer.container)/development/tokens/create", host: "localhost:\(server.http.port)",
                    headers: [("Content-Type", "text/plain")], body: Data(#"{"apnsEnvironment":"development"}"#.utf8))
                #expect(local.json["webcourierURL"]?.stringValue?.hasPrefix("http://localhost:\(server.http.port)/courier/") == true, "\(local.text)")
            }
        }
    }
}
