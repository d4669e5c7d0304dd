import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Change feeds through record shares (design note 0017): a participant sees the changes of the
/// shared hierarchy — creations, updates, deletions, moves in and out — and nothing of the rest of the zone.
@Suite struct RecordShareFeedTests {
    /// Names and values of records outside the hierarchy: no response body to the participant may contain them.
    static let hidden = ["outsideAlpha", "outsideBeta", "outsideChild", "hiddenTitle", "shareRecordS1", "pagedOutside"]

    /// One page of a feed as the participant reads it.
    struct Page {
        var live: [String] = []
        var deleted: [String] = []
        var token: String?
        var moreComing = false
        var text = ""

        init(_ reply: TestCloudKitServer.Reply, zoneItem: Bool) {
            text = reply.text
            guard case .object(var object) = reply.json else { return }
            if zoneItem, case .array(let zones)? = object["zones"], case .object(let first)? = zones.first { object = first }
            if case .string(let token)? = object["syncToken"] { self.token = token }
            if case .bool(let more)? = object["moreComing"] { moreComing = more }
            guard case .array(let records)? = object["records"] else { return }
            for case .object(let record) in records {
                guard case .string(let name)? = record["recordName"] else { continue }
                if case .bool(true)? = record["deleted"] { deleted.append(name) } else { live.append(name) }
            }
        }
    }

    static func recordsChanges(_ server: TestCloudKitServer, _ user: TestCloudKitServer.SignedInUser, owner: String, token: String?) async throws -> Page {
        let tokenKey = token.map { #","syncToken":"\#($0)""# } ?? ""
        let body = #"{"zoneID":\#(SharingTests.zone(owner: owner))\#(tokenKey)}"#
        let reply = try await server.exchange("records/changes", body, database: "shared", query: user.query)
        #expect(reply.status == 200, "\(reply.text)")
        return Page(reply, zoneItem: false)
    }

    static func zoneChanges(
        _ server: TestCloudKitServer, _ user: TestCloudKitServer.SignedInUser, owner: String, token: String?, limit: Int
    ) async throws -> Page {
        let tokenKey = token.map { #","syncToken":"\#($0)""# } ?? ""
        let body = #"{"zones":[{"zoneID":\#(SharingTests.zone(owner: owner))\#(tokenKey),"resultsLimit":\#(limit)}]}"#
        let reply = try await server.exchange("changes/zone", body, database: "shared", query: user.query)
        #expect(reply.status == 200, "\(reply.text)")
        return Page(reply, zoneItem: true)
    }

    static func expectNothingHidden(_ page: Page, sourceLocation: SourceLocation = #_sourceLocation) {
        for name in hidden {
            #expect(!page.text.contains(name), "\(name) leaked: \(page.text)", sourceLocation: sourceLocation)
        }
    }

    static func write(_ server: TestCloudKitServer, _ body: String, as user: TestCloudKitServer.SignedInUser) async throws {
        let reply = try await server.exchange("records/modify", body, query: user.query)
        #expect(reply.itemCodes() == [nil], "\(reply.text)")
    }

    static func note(_ name: String, parent: String? = nil, title: String = "hiddenTitle", operation: String = "create") -> String {
        RecordShareTests.note(name, parent: parent, title: title, operation: operation)
    }

    /// A and B signed in; A's zone `Projects` holds `root` (and `setUp`'s records), shared with B, who accepted.
    static func sharedRoot(
        _ server: TestCloudKitServer, permission: String, setUp: (TestCloudKitServer.SignedInUser) async throws -> Void = { _ in }
    ) async throws -> (a: TestCloudKitServer.SignedInUser, b: TestCloudKitServer.SignedInUser) {
        let a = try await server.signedInUser("a@example.com")
        let b = try await server.signedInUser("b@example.com")
        _ = try await server.exchange("zones/modify", Body.createZone("Projects"), query: a.query)
        try await write(server, note("root", title: "shared root"), as: a)
        try await setUp(a)
        let share = SharingTests.share(name: "shareRecordS1", forRecord: "root", participants: [("b@example.com", permission)])
        let guid = try #require(try await server.exchange("records/modify", share, query: a.query).strings("records", "shortGUID").first)
        #expect(try await server.exchange("records/accept", SharingTests.guids(guid), database: "public", query: b.query).status == 200)
        return (a, b)
    }

    @Test(arguments: RecordStoreBackend.allCases) func aParticipantFollowsTheHierarchyAndNothingElse(_ backend: RecordStoreBackend) async throws {
        try await withAuthServer(backend: backend) { server in
            let (a, b) = try await Self.sharedRoot(server, permission: "READ_ONLY") { a in
                try await Self.write(server, Self.note("child", parent: "root", title: "shared child"), as: a)
                try await Self.write(server, Self.note("outsideAlpha"), as: a)
                try await Self.write(server, Self.note("outsideChild", parent: "outsideAlpha"), as: a)
            }

            // The first fetch: the hierarchy as it is, no deletions.
            var page = try await Self.recordsChanges(server, b, owner: a.recordName, token: nil)
            #expect(Set(page.live) == ["root", "child"] && page.deleted.isEmpty, "\(page.text)")
            Self.expectNothingHidden(page)

            // Creations and updates inside; changes and a deletion outside stay unseen.
            try await Self.write(server, Self.note("child", parent: "root", title: "shared child 2", operation: "forceUpdate"), as: a)
            try await Self.write(server, Self.note("g1", parent: "child", title: "shared g1"), as: a)
            try await Self.write(server, Self.note("outsideBeta"), as: a)
            try await Self.write(server, Self.note("outsideAlpha", title: "hiddenTitle again", operation: "forceUpdate"), as: a)
            try await Self.write(server, Body.forceDelete("outsideChild", zone: "Projects"), as: a)
            page = try await Self.recordsChanges(server, b, owner: a.recordName, token: page.token)
            #expect(page.live == ["child", "g1"] && page.deleted.isEmpty, "\(page.text)")
            #expect(page.text.contains("shared child 2"))
            Self.expectNothingHidden(page)

            // A deletion inside, a move out (a deletion for B), a move in (a change).
            try await Self.write(server, Body.forceDelete("g1", zone: "Projects"), as: a)
            try await Self.write(server, Self.note("child", parent: "outsideAlpha", title: "moved out", operation: "forceUpdate"), as: a)
            try await Self.write(server, Self.note("movedIn", title: "outside for now"), as: a)
            try await Self.write(server, Self.note("movedIn", parent: "root", title: "moved in", operation: "forceUpdate"), as: a)
            page = try await Self.recordsChanges(server, b, owner: a.recordName, token: page.token)
            #expect(page.deleted == ["g1", "child"], "\(page.text)")
            #expect(page.live == ["movedIn"], "\(page.text)")
            #expect(!page.text.contains("moved out"))
            Self.expectNothingHidden(page)
            // Its lookup agrees: the moved-out record is gone for B.
            let lookup = #"{"zoneID":\#(SharingTests.zone(owner: a.recordName)),"records":[{"recordName":"child"},{"recordName":"movedIn"}]}"#
            #expect(try await server.exchange("records/lookup", lookup, database: "shared", query: b.query).itemCodes() == ["NOT_FOUND", nil])

            // A record that left before the token, then changed outside, stays unseen; nothing is repeated.
            try await Self.write(server, Self.note("child", parent: "outsideAlpha", title: "hiddenTitle", operation: "forceUpdate"), as: a)
            try await Self.write(server, Body.forceDelete("child", zone: "Projects"), as: a)
            let quiet = try await Self.recordsChanges(server, b, owner: a.recordName, token: page.token)
            #expect(quiet.live.isEmpty && quiet.deleted.isEmpty, "\(quiet.text)")
            Self.expectNothingHidden(quiet)

            // A token of the owner's whole-zone feed is not one of B's.
            let ownerFeed = try await server.exchange("records/changes", #"{"zoneID":{"zoneName":"Projects"}}"#, query: a.query)
            let ownerToken = try #require(Page(ownerFeed, zoneItem: false).token)
            let body = #"{"zoneID":\#(SharingTests.zone(owner: a.recordName)),"syncToken":"\#(ownerToken)"}"#
            #expect(try await server.exchange("records/changes", body, database: "shared", query: b.query).serverErrorCode == "BAD_REQUEST")
        }
    }

    @Test(arguments: RecordStoreBackend.allCases) func smallPagesNeverLeakAndRemovalEndsTheFeed(_ backend: RecordStoreBackend) async throws {
        try await withAuthServer(backend: backend) { server in
            let (a, b) = try await Self.sharedRoot(server, permission: "READ_WRITE")
            let start = try await Self.zoneChanges(server, b, owner: a.recordName, token: nil, limit: 10)
            #expect(start.live == ["root"], "\(start.text)")

            // Outside and inside changes interleaved, then deletions of both kinds.
            for index in 0..<4 {
                try await Self.write(server, Self.note("pagedOutside\(index)"), as: a)
                try await Self.write(server, Self.note("in\(index)", parent: "root", title: "shared \(index)"), as: a)
            }
            try await Self.write(server, Body.forceDelete("pagedOutside1", zone: "Projects"), as: a)
            try await Self.write(server, Body.forceDelete("in1", zone: "Projects"), as: a)
            var token = start.token
            var live: [String] = []
            var deleted: [String] = []
            var pages = 0
            repeat {
                let page = try await Self.zoneChanges(server, b, owner: a.recordName, token: token, limit: 1)
                Self.expectNothingHidden(page)
                #expect(page.live.count + page.deleted.count <= 1)
                live += page.live
                deleted += page.deleted
                token = page.token
                pages += 1
                if !page.moreComing { break }
            } while pages < 40
            #expect(live == ["in0", "in2", "in3"], "\(live)")
            #expect(deleted == ["in1"], "\(deleted)")

            // A removes B: the next feed request is refused, through both endpoints.
            let removal = SharingTests.share("forceUpdate", name: "shareRecordS1", forRecord: "root", participants: [])
            try await Self.write(server, removal, as: a)
            let body = #"{"zoneID":\#(SharingTests.zone(owner: a.recordName)),"syncToken":"\#(token ?? "")"}"#
            #expect(try await server.exchange("records/changes", body, database: "shared", query: b.query).serverErrorCode == "ZONE_NOT_FOUND")
            let zones = #"{"zones":[{"zoneID":\#(SharingTests.zone(owner: a.recordName))}]}"#
            let refused = try await server.exchange("changes/zone", zones, database: "shared", query: b.query)
            #expect(refused.itemCodes("zones") == ["ZONE_NOT_FOUND"], "\(refused.text)")
        }
    }

    @Test(arguments: RecordStoreBackend.allCases) func databaseChangesAndTokensFollowTheHierarchy(_ backend: RecordStoreBackend) async throws {
        try await withAuthServer(backend: backend) { server in
            let (a, b) = try await Self.sharedRoot(server, permission: "READ_ONLY")
            func databaseChanges(_ token: String?) async throws -> (zones: [String], token: String?) {
                let reply = try await server.exchange("changes/database", token.map { #"{"syncToken":"\#($0)"}"# } ?? "{}", database: "shared", query: b.query)
                #expect(reply.status == 200, "\(reply.text)")
                for name in Self.hidden { #expect(!reply.text.contains(name)) }
                return (reply.zoneNames, Page(reply, zoneItem: false).token)
            }
            var database = try await databaseChanges(nil)
            #expect(database.zones == ["Projects"])
            let feed = try await Self.recordsChanges(server, b, owner: a.recordName, token: nil)

            // Changes outside the hierarchy do not list the zone; one inside does.
            try await Self.write(server, Self.note("outsideAlpha"), as: a)
            database = try await databaseChanges(database.token)
            #expect(database.zones.isEmpty)
            try await Self.write(server, Self.note("child", parent: "root", title: "shared child"), as: a)
            database = try await databaseChanges(database.token)
            #expect(database.zones == ["Projects"])
            try await Self.write(server, Body.forceDelete("outsideAlpha", zone: "Projects"), as: a)
            database = try await databaseChanges(database.token)
            #expect(database.zones.isEmpty)

            // A second record share for B in the zone: the old feed token is refused, a fresh fetch sees both hierarchies.
            try await Self.write(server, Self.note("second", title: "second root"), as: a)
            let share = SharingTests.share(name: "shareRecordS2", forRecord: "second", participants: [("b@example.com", "READ_ONLY")])
            let guid = try #require(try await server.exchange("records/modify", share, query: a.query).strings("records", "shortGUID").first)
            #expect(try await server.exchange("records/accept", SharingTests.guids(guid), database: "public", query: b.query).status == 200)
            let stale = #"{"zoneID":\#(SharingTests.zone(owner: a.recordName)),"syncToken":"\#(feed.token ?? "")"}"#
            let refused = try await server.exchange("records/changes", stale, database: "shared", query: b.query)
            #expect(refused.serverErrorCode == "BAD_REQUEST" && refused.reason?.contains("sync token") == true, "\(refused.text)")
            let fresh = try await Self.recordsChanges(server, b, owner: a.recordName, token: nil)
            #expect(Set(fresh.live) == ["root", "child", "second"], "\(fresh.text)")
        }
    }

    @Test(arguments: RecordStoreBackend.allCases) func subtreesMoveWithTheirRecords(_ backend: RecordStoreBackend) async throws {
        try await withAuthServer(backend: backend) { server in
            let (a, b) = try await Self.sharedRoot(server, permission: "READ_ONLY") { a in
                try await Self.write(server, Self.note("folder", parent: "root", title: "shared folder"), as: a)
                try await Self.write(server, Self.note("leafA", parent: "folder", title: "shared leaf"), as: a)
                try await Self.write(server, Self.note("outsideAlpha"), as: a)
                try await Self.write(server, Self.note("incomingFolder", parent: "outsideAlpha", title: "not yet"), as: a)
                try await Self.write(server, Self.note("incomingLeaf", parent: "incomingFolder", title: "not yet"), as: a)
            }
            var page = try await Self.recordsChanges(server, b, owner: a.recordName, token: nil)
            #expect(Set(page.live) == ["root", "folder", "leafA"] && page.deleted.isEmpty, "\(page.text)")
            #expect(!page.text.contains("incoming"))
            Self.expectNothingHidden(page)

            // A folder moved out takes its leaf with it; one moved in brings its leaf.
            try await Self.write(server, Self.note("folder", parent: "outsideAlpha", title: "moved out", operation: "forceUpdate"), as: a)
            page = try await Self.recordsChanges(server, b, owner: a.recordName, token: page.token)
            #expect(page.live.isEmpty && Set(page.deleted) == ["folder", "leafA"], "\(page.text)")
            Self.expectNothingHidden(page)
            try await Self.write(server, Self.note("incomingFolder", parent: "root", title: "moved in", operation: "forceUpdate"), as: a)
            page = try await Self.recordsChanges(server, b, owner: a.recordName, token: page.token)
            #expect(Set(page.live) == ["incomingFolder", "incomingLeaf"] && page.deleted.isEmpty, "\(page.text)")
            Self.expectNothingHidden(page)

            // Deleting a folder takes its leaf out of the hierarchy.
            try await Self.write(server, Body.forceDelete("incomingFolder", zone: "Projects"), as: a)
            page = try await Self.recordsChanges(server, b, owner: a.recordName, token: page.token)
            #expect(page.live.isEmpty && Set(page.deleted) == ["incomingFolder", "incomingLeaf"], "\(page.text)")
            Self.expectNothingHidden(page)

            // From the start: the hierarchy as it is now, no deletions.
            page = try await Self.recordsChanges(server, b, owner: a.recordName, token: nil)
            #expect(page.live == ["root"] && page.deleted.isEmpty, "\(page.text)")
            Self.expectNothingHidden(page)
        }
    }
}
