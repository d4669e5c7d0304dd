import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Record shares (Apple's CloudKit Web Services Reference: “Record dictionary” `parent`/`share`, “records/modify”): a share's root and the records whose
/// `parent` chain leads to it, and nothing else of the zone, through the participant's shared database.
@Suite struct RecordShareTests {
    static func note(_ name: String, parent: String? = nil, title: String, operation: String = "create", owner: String? = nil) -> String {
        let parentKey = parent.map { #","parent":{"recordName":"\#($0)"}"# } ?? ""
        let ownerKey = owner.map { #","ownerRecordName":"\#($0)""# } ?? ""
        return
            #"{"zoneID":{"zoneName":"Projects"\#(ownerKey)},"operations":[{"operationType":"\#(operation)","record":{"recordName":"\#(name)","recordType":"Note","fields":{"title":{"value":"\#(title)"}}\#(parentKey)}}]}"#
    }

    @Test(arguments: RecordStoreBackend.allCases) func aRecordSharedReadOnlyThenReadWriteThenRemoved(_ backend: RecordStoreBackend) async throws {
        try await withAuthServer(backend: backend) { server in
            let a = try await server.signedInUser("a@example.com")
            let b = try await server.signedInUser("b@example.com")
            _ = try await server.exchange("zones/modify", Body.createZone("Projects"), query: a.query)
            #expect(try await server.exchange("records/modify", Self.note("root", title: "root"), query: a.query).itemCodes() == [nil])
            let child = try await server.exchange("records/modify", Self.note("child", parent: "root", title: "child"), query: a.query)
            #expect(child.itemCodes() == [nil], "\(child.text)")
            // `parent` round-trips, and is no field.
            #expect(child.text.contains(#""parent":{"recordName":"root"}"#), "\(child.text)")
            #expect(!child.text.contains("___parent"))
            let grandchild = Self.note("grandchild", parent: "child", title: "grandchild")
            #expect(try await server.exchange("records/modify", grandchild, query: a.query).itemCodes() == [nil])
            #expect(try await server.exchange("records/modify", Self.note("sibling", title: "sibling"), query: a.query).itemCodes() == [nil])
            let ownerRead = try await server.exchange("records/lookup", Body.lookup("grandchild", zone: "Projects"), query: a.query)
            #expect(ownerRead.text.contains(#""parent":{"recordName":"child"}"#), "\(ownerRead.text)")

            // A shares `root` read-only with B; B accepts.
            let share = SharingTests.share(name: "s1", forRecord: "root", participants: [("b@example.com", "READ_ONLY")])
            let created = try await server.exchange("records/modify", share, query: a.query)
            #expect(created.itemCodes() == [nil], "\(created.text)")
            let guid = try #require(created.strings("records", "shortGUID").first)
            #expect(try await server.exchange("records/accept", SharingTests.guids(guid), database: "public", query: b.query).status == 200)
            #expect(try await server.exchange("zones/list", method: "GET", database: "shared", query: b.query).zoneNames == ["Projects"])

            // B reads the hierarchy, and nothing else of the zone.
            let zone = SharingTests.zone(owner: a.recordName)
            let lookup =
                #"{"zoneID":\#(zone),"records":[{"recordName":"root"},{"recordName":"child"},{"recordName":"grandchild"},{"recordName":"sibling"},{"recordName":"s1"}]}"#
            let read = try await server.exchange("records/lookup", lookup, database: "shared", query: b.query)
            #expect(read.itemCodes() == [nil, nil, nil, "NOT_FOUND", "NOT_FOUND"], "\(read.text)")
            #expect(read.text.contains(#""parent":{"recordName":"root"}"#))
            #expect(!read.text.contains(#""value":"sibling""#))
            let queryBody = #"{"zoneID":\#(zone),"query":{"recordType":"Note"}}"#
            let query = try await server.exchange("records/query", queryBody, database: "shared", query: b.query)
            #expect(Set(query.strings("records", "recordName")) == ["root", "child", "grandchild"], "\(query.text)")
            // The change feed shows the hierarchy only (RecordShareFeedTests has the rest).
            let feed = try await server.exchange("records/changes", #"{"zoneID":\#(zone)}"#, database: "shared", query: b.query)
            #expect(Set(feed.strings("records", "recordName")) == ["root", "child", "grandchild"], "\(feed.text)")

            // B cannot write while read-only.
            let update = Self.note("child", title: "by B", operation: "forceUpdate", owner: a.recordName)
            #expect(try await server.exchange("records/modify", update, database: "shared", query: b.query).serverErrorCode == "ACCESS_DENIED")

            // A upgrades B to READ_WRITE; B updates the child and adds a record under it.
            let upgrade = SharingTests.share("forceUpdate", name: "s1", forRecord: "root", participants: [("b@example.com", "READ_WRITE")])
            #expect(try await server.exchange("records/modify", upgrade, query: a.query).itemCodes() == [nil])
            let written = try await server.exchange("records/modify", update, database: "shared", query: b.query)
            #expect(written.itemCodes() == [nil], "\(written.text)")
            #expect(try await server.exchange("records/lookup", Body.lookup("child", zone: "Projects"), query: a.query).text.contains("by B"))
            let added = Self.note("b1", parent: "child", title: "from B", owner: a.recordName)
            #expect(try await server.exchange("records/modify", added, database: "shared", query: b.query).itemCodes() == [nil])
            // Still nothing outside the hierarchy: not the sibling, not a parentless record, not a move out.
            let outside = Self.note("sibling", title: "by B", operation: "forceUpdate", owner: a.recordName)
            #expect(try await server.exchange("records/modify", outside, database: "shared", query: b.query).serverErrorCode == "ACCESS_DENIED")
            let orphan = Self.note("b2", title: "orphan", owner: a.recordName)
            #expect(try await server.exchange("records/modify", orphan, database: "shared", query: b.query).serverErrorCode == "ACCESS_DENIED")
            let underSibling = Self.note("b3", parent: "sibling", title: "hidden", owner: a.recordName)
            #expect(try await server.exchange("records/modify", underSibling, database: "shared", query: b.query).serverErrorCode == "ACCESS_DENIED")
            let moveOut = Self.note("child", parent: "sibling", title: "moved", operation: "forceUpdate", owner: a.recordName)
            #expect(try await server.exchange("records/modify", moveOut, database: "shared", query: b.query).serverErrorCode == "ACCESS_DENIED")
            #expect(try await server.exchange("records/lookup", Body.lookup("sibling", zone: "Projects"), query: a.query).text.contains(#""value":"sibling""#))

            // A removes B: B sees nothing, at once.
            let removal = SharingTests.share("forceUpdate", name: "s1", forRecord: "root", participants: [])
            #expect(try await server.exchange("records/modify", removal, query: a.query).itemCodes() == [nil])
            #expect(try await server.exchange("zones/list", method: "GET", database: "shared", query: b.query).zoneNames.isEmpty)
            #expect(try await server.exchange("records/lookup", lookup, database: "shared", query: b.query).serverErrorCode == "ZONE_NOT_FOUND")
            #expect(try await server.exchange("records/query", queryBody, database: "shared", query: b.query).serverErrorCode == "ZONE_NOT_FOUND")
            #expect(try await server.exchange("records/modify", update, database: "shared", query: b.query).serverErrorCode == "ZONE_NOT_FOUND")
        }
    }

    @Test(arguments: RecordStoreBackend.allCases) func deletingARecordShareTakesAccessAway(_ backend: RecordStoreBackend) async throws {
        try await withAuthServer(backend: backend) { server in
            let a = try await server.signedInUser("a@example.com")
            let b = try await server.signedInUser("b@example.com")
            _ = try await server.exchange("zones/modify", Body.createZone("Projects"), query: a.query)
            _ = try await server.exchange("records/modify", Self.note("root", title: "root"), query: a.query)
            _ = try await server.exchange("records/modify", Self.note("child", parent: "root", title: "child"), query: a.query)
            let share = SharingTests.share(name: "s1", forRecord: "root", participants: [("b@example.com", "READ_WRITE")])
            let guid = try #require(try await server.exchange("records/modify", share, query: a.query).strings("records", "shortGUID").first)
            _ = try await server.exchange("records/accept", SharingTests.guids(guid), database: "public", query: b.query)
            let lookup = #"{"zoneID":\#(SharingTests.zone(owner: a.recordName)),"records":[{"recordName":"child"}]}"#
            #expect(try await server.exchange("records/lookup", lookup, database: "shared", query: b.query).itemCodes() == [nil])
            #expect(try await server.exchange("records/modify", Body.forceDelete("s1", zone: "Projects"), query: a.query).itemCodes() == [nil])
            #expect(try await server.exchange("records/lookup", lookup, database: "shared", query: b.query).serverErrorCode == "ZONE_NOT_FOUND")
        }
    }
}
