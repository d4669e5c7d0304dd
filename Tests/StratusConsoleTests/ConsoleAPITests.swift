import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// The console's API goes through the server's own services: what it changes is what the CloudKit
/// API sees, with the same change tags, conflicts, credentials and schema rules.
@Suite struct ConsoleAPITests {
    static let container = TestCloudKitServer.container

    /// Ada's note "n1" made through the CloudKit API with her own credentials.
    private func adaWithANote(_ server: ConsoleTestServer) async throws -> (TestCloudKitServer.SignedInUser, String) {
        let ada = try await server.cloudKit.signedInUser("ada@example.com")
        let create = #"{"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"title":{"value":"first"}}}}]}"#
        let reply = try await server.cloudKit.exchange("records/modify", create, query: ada.query)
        #expect(reply.status == 200)
        let record = try #require((try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])?["records"] as? [[String: Any]]).first
        return (ada, try #require(record?["recordChangeTag"] as? String))
    }

    private func consoleModify(_ server: ConsoleTestServer, _ session: ConsoleTestServer.Session, tag: String, title: String) async throws -> [String: Any] {
        let body =
            #"{"operations":[{"operationType":"update","record":{"recordName":"n1","recordType":"Note","recordChangeTag":"\#(tag)","fields":{"title":{"value":"\#(title)"}}}}]}"#
        let reply = try await server.send(
            "POST", "/console/api/database/\(Self.container)/development/private/records/modify?user=ada@example.com", body: body,
            cookie: session.cookie, csrf: session.csrf
        )
        #expect(reply.status == 200)
        return try #require((try reply.json()["records"] as? [[String: Any]])?.first)
    }

    @Test func anEditThroughTheConsoleIsVisibleThroughTheCloudKitAPIWithANewChangeTag() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let (ada, tag) = try await adaWithANote(server)
        let session = try await server.signIn()
        let saved = try await consoleModify(server, session, tag: tag, title: "edited in the console")
        let newTag = try #require(saved["recordChangeTag"] as? String)
        #expect(newTag != tag)
        let lookup = try await server.cloudKit.exchange("records/lookup", #"{"records":[{"recordName":"n1"}]}"#, query: ada.query)
        let record = try #require((try JSONSerialization.jsonObject(with: lookup.body) as? [String: Any])?["records"] as? [[String: Any]]).first
        #expect(record?["recordChangeTag"] as? String == newTag)
        #expect(((record?["fields"] as? [String: Any])?["title"] as? [String: Any])?["value"] as? String == "edited in the console")
        let audit = try await server.send("GET", "/console/api/audit", cookie: session.cookie)
        #expect(audit.text.contains("records/modify") && audit.text.contains("update n1"))
    }

    @Test func aStaleEditThroughTheConsoleGetsTheConflictAndChangesNothing() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let (ada, tag) = try await adaWithANote(server)
        let session = try await server.signIn()
        _ = try await consoleModify(server, session, tag: tag, title: "second")
        let stale = try await consoleModify(server, session, tag: tag, title: "lost update")
        #expect(stale["serverErrorCode"] as? String == "CONFLICT")
        let audit = try await server.send("GET", "/console/api/audit", cookie: session.cookie)
        #expect(audit.text.contains("update n1 (CONFLICT, not done)"), "the log says the stale edit did nothing")
        let lookup = try await server.cloudKit.exchange("records/lookup", #"{"records":[{"recordName":"n1"}]}"#, query: ada.query)
        #expect(String(decoding: lookup.body, as: UTF8.self).contains("second"))
    }

    @Test func aPrivateDatabaseNeedsAUserAndOnlyTheConsolesOperationsPass() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let session = try await server.signIn()
        let base = "/console/api/database/\(Self.container)/development"
        let noUser = try await server.send("POST", "\(base)/private/zones/list", body: "{}", cookie: session.cookie, csrf: session.csrf)
        #expect(noUser.status == 400)
        let unknown = try await server.send(
            "POST", "\(base)/private/zones/list?user=nobody@example.com", body: "{}", cookie: session.cookie, csrf: session.csrf)
        #expect(unknown.status == 404)
        let upload = try await server.send("POST", "\(base)/public/assets/upload", body: "{}", cookie: session.cookie, csrf: session.csrf)
        #expect(upload.status == 400)
        let publicZones = try await server.send("POST", "\(base)/public/zones/list", body: "{}", cookie: session.cookie, csrf: session.csrf)
        #expect(publicZones.status == 200)
        let badContainer = try await server.send(
            "POST", "/console/api/database/iCloud.nope/development/public/zones/list", body: "{}", cookie: session.cookie, csrf: session.csrf)
        #expect(badContainer.status == 404)
    }

    @Test func aTokenRevokedInTheConsoleGets401FromTheCloudKitAPI() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let session = try await server.signIn()
        let body = ConsoleTestServer.json(["container": Self.container, "environment": "development", "name": "web"])
        let created = try await server.send("POST", "/console/api/tokens", body: body, cookie: session.cookie, csrf: session.csrf)
        let token = try #require(try created.json()["token"] as? String)
        let prefix = try #require(try created.json()["prefix"] as? String)
        let list = try await server.send("GET", "/console/api/tokens?container=\(Self.container)", cookie: session.cookie)
        #expect(list.text.contains(prefix) && !list.text.contains(token), "the list shows prefixes, never tokens")
        let before = try await server.cloudKit.exchange("zones/list", #"{}"#, database: "public", query: [("ckAPIToken", token)])
        #expect(before.status == 200)
        #expect(try await server.send("POST", "/console/api/tokens/\(prefix)/revoke", body: "{}", cookie: session.cookie, csrf: session.csrf).status == 200)
        let after = try await server.cloudKit.exchange("zones/list", #"{}"#, database: "public", query: [("ckAPIToken", token)])
        #expect(after.status == 401)
    }

    @Test func aSchemaEditedInDevelopmentDeploysToProductionAfterAPreview() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let session = try await server.signIn()
        let base = "/console/api/schema/\(Self.container)"
        let schema = #"{"recordTypes":{"Note":{"fields":{"title":{"type":"STRING","queryable":true}}}}}"#
        let saved = try await server.send("POST", "\(base)/development", body: schema, cookie: session.cookie, csrf: session.csrf)
        #expect(saved.status == 200, "\(saved.text)")
        let development = try await server.send("GET", "\(base)/development", cookie: session.cookie)
        #expect(development.status == 200 && development.text.contains("title"))
        let preview = try await server.send("GET", "\(base)/preview", cookie: session.cookie)
        let changes = try #require(try preview.json()["changes"] as? [String])
        #expect(changes.contains { $0.contains("Note") })
        #expect(try await server.send("POST", "\(base)/deploy", body: "{}", cookie: session.cookie, csrf: session.csrf).status == 200)
        let production = try await server.cloudKit.store.exportSchema(container: Self.container, environment: .production)
        #expect(production.recordTypes["Note"] != nil)
        let after = try await server.send("GET", "\(base)/preview", cookie: session.cookie)
        #expect((try after.json()["changes"] as? [String])?.isEmpty == true)
        let retype = #"{"recordTypes":{"Note":{"fields":{"title":{"type":"INT64"}}}}}"#
        let refused = try await server.send("POST", "\(base)/development", body: retype, cookie: session.cookie, csrf: session.csrf)
        #expect(refused.status == 409 || refused.status == 400)
    }

    @Test func usersCanBeListedAndSignedOutEverywhere() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let (ada, _) = try await adaWithANote(server)
        let session = try await server.signIn()
        let users = try await server.send("GET", "/console/api/users", cookie: session.cookie)
        #expect(users.text.contains("ada@example.com") && !users.text.contains("argon2"), "no password hash leaves the server")
        let signOut = try await server.send("POST", "/console/api/users/ada@example.com/signout", body: "{}", cookie: session.cookie, csrf: session.csrf)
        #expect(signOut.status == 200)
        let refused = try await server.cloudKit.exchange("records/lookup", #"{"records":[{"recordName":"n1"}]}"#, query: ada.query)
        #expect(refused.status == 401)
    }

    @Test func usageShowsEachDatabasesBytesAgainstItsQuota() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        _ = try await adaWithANote(server)
        let session = try await server.signIn()
        let reply = try await server.send("GET", "/console/api/usage/\(Self.container)/development", cookie: session.cookie)
        #expect(reply.status == 200)
        let lines = try #require(try reply.json()["lines"] as? [[String: Any]])
        let ada = try #require(lines.first { $0["user"] as? String == "ada@example.com" })
        #expect((ada["recordBytes"] as? Int ?? 0) > 0, "Ada's note counts")
        #expect(lines.first { $0["database"] as? String == "public" }?["recordBytes"] as? Int == 0)
        #expect(try await server.send("GET", "/console/api/usage/\(Self.container)/staging", cookie: session.cookie).status == 400)
    }

    @Test func discoverabilityChangesThroughTheAccountStoreAndIsAudited() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        _ = try await server.cloudKit.signedInUser("ada@example.com")
        let session = try await server.signIn()
        let reply = try await server.send(
            "POST", "/console/api/users/ada@example.com/discoverable", body: #"{"discoverable":true}"#, cookie: session.cookie, csrf: session.csrf
        )
        #expect(reply.status == 200)
        #expect(try await server.cloudKit.admin().user(matching: "ada@example.com").isDiscoverable)
        #expect(try await server.send("GET", "/console/api/audit", cookie: session.cookie).text.contains("users.discoverable"))
        #expect(try await server.send("GET", "/console/api/keys", cookie: session.cookie).text == "[]")
    }

    @Test func theRequestTailShowsAnsweredRequestsWithoutTheirSecrets() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let session = try await server.signIn()
        _ = try await server.send("GET", "/assets/download/sealed-ticket-secret/file.jpg?x=1")
        _ = try await server.send("GET", "/console/api/containers?ckAPIToken=secret-in-query", cookie: session.cookie)
        let reply = try await server.send("GET", "/console/api/requests?after=0", cookie: session.cookie)
        let entries = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [[String: Any]])
        let paths = entries.compactMap { $0["path"] as? String }
        #expect(paths.contains("/console/api/signin") && paths.contains("/console/api/containers") && paths.contains("/assets/…"))
        #expect(!reply.text.contains("secret"), "no ticket and no query string is kept")
        let last = try #require(entries.last?["sequence"] as? Int)
        let later = try await server.send("GET", "/console/api/requests?after=\(last)", cookie: session.cookie)
        let newer = try #require(try JSONSerialization.jsonObject(with: later.body) as? [[String: Any]])
        #expect(newer.map { $0["sequence"] as? Int } == [last + 1], "only what came after: the first read of the tail itself")
    }
}
