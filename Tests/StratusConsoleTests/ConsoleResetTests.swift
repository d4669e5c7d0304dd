import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Resetting the development environment: everything of development goes, production stays, and
/// only a signed-in administrator's typed, CSRF-carrying request does it.
@Suite struct ConsoleResetTests {
    static let container = TestCloudKitServer.container
    static let resetPath = "/console/api/environments/\(container)/development/reset"

    /// Ada's note in a zone of her own and one in her default zone, a subscription, and a schema
    /// deployed to production with a production note — in each environment's eyes.
    private func populate(_ server: ConsoleTestServer) async throws -> TestCloudKitServer.SignedInUser {
        let ada = try await server.cloudKit.signedInUser("ada@example.com")
        let zone = #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#
        #expect(try await server.cloudKit.exchange("zones/modify", zone, query: ada.query).status == 200)
        let note = { (zoneName: String, name: String) in
            #"{"zoneID":{"zoneName":"\#(zoneName)"},"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Note","fields":{"title":{"value":"t"}}}}]}"#
        }
        #expect(try await server.cloudKit.exchange("records/modify", note("Notes", "n1"), query: ada.query).status == 200)
        #expect(try await server.cloudKit.exchange("records/modify", note("_defaultZone", "n2"), query: ada.query).status == 200)
        let subscription =
            #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"s1","subscriptionType":"zone","zoneID":{"zoneName":"Notes"}}}]}"#
        #expect(try await server.cloudKit.exchange("subscriptions/modify", subscription, query: ada.query).status == 200)
        _ = try await server.cloudKit.store.deploySchema(container: Self.container)
        let production = try await server.cloudKit.admin().createAPIToken(container: Self.container, environment: .production, name: "prod").token
        let productionToken = try await server.cloudKit.admin().webAuthToken(for: "ada@example.com", container: Self.container)
        let query = [("ckAPIToken", production), ("ckWebAuthToken", productionToken)]
        let created = try await server.cloudKit.exchange(
            "records/modify", body: Data(note("_defaultZone", "p1").utf8), query: query, environment: "production")
        #expect(created.status == 200, "\(created.text)")
        // A type only development has, made by a write there after the deploy.
        let draft = note("Notes", "d1").replacingOccurrences(of: #""recordType":"Note""#, with: #""recordType":"Draft""#)
        let drafted = try await server.cloudKit.exchange("records/modify", draft, query: ada.query)
        #expect(drafted.status == 200 && drafted.serverErrorCode == nil && !drafted.text.contains("serverErrorCode"), "\(drafted.text)")
        return ada
    }

    @Test func aResetEmptiesDevelopmentAndLeavesProductionAlone() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let ada = try await populate(server)
        let session = try await server.signIn()
        let reply = try await server.send(
            "POST", Self.resetPath, body: ConsoleTestServer.json(["confirm": Self.container]), cookie: session.cookie, csrf: session.csrf)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(try reply.json()["subscriptions"] as? Int == 1)
        #expect(try reply.json()["recordTypes"] as? Int == 1, "Draft, which production does not have")
        let zones = try await server.cloudKit.exchange("zones/list", "{}", query: ada.query)
        #expect(zones.status == 200 && !zones.text.contains("Notes"))
        let lookup = try await server.cloudKit.exchange("records/lookup", #"{"records":[{"recordName":"n2"}]}"#, query: ada.query)
        #expect(lookup.text.contains("NOT_FOUND"), "the default zone came back empty: \(lookup.text)")
        let subscriptions = try await server.cloudKit.exchange("subscriptions/list", "{}", query: ada.query)
        #expect(!subscriptions.text.contains("s1"))
        let development = try await server.cloudKit.store.exportSchema(container: Self.container, environment: .development)
        let production = try await server.cloudKit.store.exportSchema(container: Self.container, environment: .production)
        #expect(
            development == production && production.recordTypes["Note"] != nil && production.recordTypes["Draft"] == nil,
            "development's schema is production's again")
        let preview = try await server.send("GET", "/console/api/schema/\(Self.container)/preview", cookie: session.cookie)
        #expect(preview.status == 200)
        #expect(try (preview.json()["changes"] as? [String])?.isEmpty == true, "nothing to deploy, nothing refused")
        let productionRecord = try await server.cloudKit.store.read { tx -> Bool in
            let database = DatabaseKey(container: Self.container, environment: .production, scope: .private, owner: ada.recordName)
            guard let zone = try tx.zone(named: ZoneID.defaultZoneName, in: database) else { return false }
            return try tx.record(named: "p1", inZone: zone.rowID) != nil
        }
        #expect(productionRecord, "production's record is untouched")
        let audit = try await server.send("GET", "/console/api/audit", cookie: session.cookie)
        #expect(audit.text.contains("environment.reset") && audit.text.contains("\(Self.container)/development"))
    }

    @Test func aResetWithoutTheTypedConfirmationTheCSRFTokenOrASessionChangesNothing() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let ada = try await populate(server)
        let session = try await server.signIn()
        let body = ConsoleTestServer.json(["confirm": Self.container])
        let untyped = try await server.send(
            "POST", Self.resetPath, body: ConsoleTestServer.json(["confirm": "yes"]), cookie: session.cookie, csrf: session.csrf)
        #expect(untyped.status == 400 && untyped.text.contains("type the container"))
        // A cross-site page can make the browser send the cookie, never the token.
        #expect(try await server.send("POST", Self.resetPath, body: body, cookie: session.cookie).status == 403)
        #expect(try await server.send("POST", Self.resetPath, body: body, cookie: session.cookie, csrf: session.csrf, contentType: "text/plain").status == 403)
        // No administrator: an app user's credentials, or none.
        #expect(try await server.send("POST", Self.resetPath + "?ckAPIToken=\(ada.apiToken)", body: body, csrf: session.csrf).status == 401)
        #expect(try await server.send("POST", Self.resetPath, body: body).status == 401)
        // There is no production reset.
        let production = "/console/api/environments/\(Self.container)/production/reset"
        let productionReset = try await server.send("POST", production, body: body, cookie: session.cookie, csrf: session.csrf)
        #expect(productionReset.status == 404, "no such route: \(productionReset.text)")
        let zones = try await server.cloudKit.exchange("zones/list", "{}", query: ada.query)
        #expect(zones.text.contains("Notes"), "nothing was reset")
        let unknown = "/console/api/environments/iCloud.nope/development/reset"
        let missing = try await server.send(
            "POST", unknown, body: ConsoleTestServer.json(["confirm": "iCloud.nope"]), cookie: session.cookie, csrf: session.csrf)
        #expect(missing.status == 404)
    }
}
