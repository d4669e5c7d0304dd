import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// User B can never reach user A's private database, by any endpoint, even with the exact names.
@Suite struct IsolationTests {
    @Test func anotherUserCannotReadListQueryOrFollowChangesOfPrivateData() async throws {
        try await withAuthServer { server in
            let a = try await server.signedInUser("a@example.com")
            let b = try await server.signedInUser("b@example.com")
            #expect(try await server.exchange("zones/modify", Body.createZone("Secret"), query: a.query).itemCodes("zones") == [nil])
            #expect(try await server.exchange("records/modify", Body.create("r1", zone: "Secret"), query: a.query).itemCodes() == [nil])
            #expect(try await server.exchange("records/modify", Body.create("d1"), query: a.query).itemCodes() == [nil])
            let aChanges = try await server.exchange("records/changes", #"{"zoneID":{"zoneName":"Secret"}}"#, query: a.query)
            #expect(aChanges.strings("records", "recordName") == ["r1"])
            let aToken = try #require(aChanges.json["syncToken"]?.stringValue)

            // Listing and looking up zones.
            let list = try await server.exchange("zones/list", method: "GET", query: b.query)
            #expect(list.status == 200)
            #expect(!list.zoneNames.contains("Secret"))
            let lookup = try await server.exchange(
                "zones/lookup", #"{"zones":[{"zoneName":"Secret"},{"zoneName":"Secret","ownerRecordName":\#(Body.quoted(a.recordName))}]}"#, query: b.query)
            #expect(lookup.itemCodes("zones") == ["ZONE_NOT_FOUND", "ZONE_NOT_FOUND"])

            // Records by exact name, in the custom zone (with and without A's owner name) and the default zone.
            #expect(try await server.exchange("records/lookup", Body.lookup("r1", zone: "Secret"), query: b.query).itemCodes() == ["ZONE_NOT_FOUND"])
            let owned = try await server.exchange("records/lookup", Body.lookup("r1", zone: "Secret", owner: a.recordName), query: b.query)
            #expect(owned.status != 200 || owned.itemCodes() == ["ZONE_NOT_FOUND"])
            #expect(try await server.exchange("records/lookup", Body.lookup("d1"), query: b.query).itemCodes() == ["NOT_FOUND"])

            // Queries, in the zone, the default zone and zone-wide.
            #expect(try await server.exchange("records/query", Body.query(zone: "Secret"), query: b.query).serverErrorCode == "ZONE_NOT_FOUND")
            #expect(try await server.exchange("records/query", Body.query(), query: b.query).strings("records", "recordName").isEmpty)
            #expect(try await server.exchange("records/query", Body.query(zoneWide: true), query: b.query).strings("records", "recordName").isEmpty)

            // Change feeds: zone changes, database changes, and A's own sync token.
            #expect(try await server.exchange("records/changes", #"{"zoneID":{"zoneName":"Secret"}}"#, query: b.query).serverErrorCode == "ZONE_NOT_FOUND")
            let zoneChanges = try await server.exchange("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Secret"}}]}"#, query: b.query)
            #expect(zoneChanges.itemCodes("zones") == ["ZONE_NOT_FOUND"])
            let databaseChanges = try await server.exchange("changes/database", "{}", query: b.query)
            #expect(!databaseChanges.zoneNames.contains("Secret"))
            #expect(!(try await server.exchange("zones/changes", "{}", query: b.query).zoneNames.contains("Secret")))
            #expect(try await server.exchange("zones/modify", Body.createZone("Secret"), query: b.query).itemCodes("zones") == [nil])
            let replay = try await server.exchange(
                "records/changes", #"{"zoneID":{"zoneName":"Secret"},"syncToken":\#(Body.quoted(aToken))}"#, query: b.query)
            #expect(replay.status == 400)
            #expect(try await server.exchange("records/changes", #"{"zoneID":{"zoneName":"Secret"}}"#, query: b.query).strings("records", "recordName").isEmpty)
            let aDatabaseToken = try #require(try await server.exchange("changes/database", "{}", query: a.query).json["syncToken"]?.stringValue)
            #expect(try await server.exchange("changes/database", #"{"syncToken":\#(Body.quoted(aDatabaseToken))}"#, query: b.query).status == 400)
        }
    }

    @Test func anotherUserCannotChangeOrDeletePrivateData() async throws {
        try await withAuthServer { server in
            let a = try await server.signedInUser("a@example.com")
            let b = try await server.signedInUser("b@example.com")
            _ = try await server.exchange("zones/modify", Body.createZone("Secret"), query: a.query)
            _ = try await server.exchange("records/modify", Body.create("r1", zone: "Secret", title: "mine"), query: a.query)
            _ = try await server.exchange("records/modify", Body.create("d1", title: "mine"), query: a.query)

            #expect(
                try await server.exchange("records/modify", Body.forceUpdate("r1", zone: "Secret", title: "b was here"), query: b.query).itemCodes() == [
                    "ZONE_NOT_FOUND"
                ])
            #expect(try await server.exchange("records/modify", Body.forceDelete("r1", zone: "Secret"), query: b.query).itemCodes() == ["ZONE_NOT_FOUND"])
            let deleteZone = #"{"operations":[{"operationType":"delete","zone":{"zoneID":{"zoneName":"Secret"}}}]}"#
            #expect(try await server.exchange("zones/modify", deleteZone, query: b.query).itemCodes("zones") == ["ZONE_NOT_FOUND"])
            // In B's own default zone these names are B's own records; A's stay untouched.
            _ = try await server.exchange("records/modify", Body.forceUpdate("d1", title: "b was here"), query: b.query)
            _ = try await server.exchange("records/modify", Body.forceDelete("d1"), query: b.query)

            let r1 = try await server.exchange("records/lookup", Body.lookup("r1", zone: "Secret"), query: a.query)
            let d1 = try await server.exchange("records/lookup", Body.lookup("d1"), query: a.query)
            #expect(r1.itemCodes() == [nil])
            #expect(d1.itemCodes() == [nil])
            #expect(r1.text.contains("mine") && d1.text.contains("mine"))
            #expect(!r1.text.contains("b was here") && !d1.text.contains("b was here"))
            let created = d1.json["records"]?[0]?["created"]?["userRecordName"]?.stringValue
            #expect(created == a.recordName)
        }
    }

    @Test func publicRecordsAreReadableByAnyTokenButWritableOnlyByTheirCreator() async throws {
        try await withAuthServer { server in
            let a = try await server.signedInUser("a@example.com")
            let b = try await server.signedInUser("b@example.com")
            let anonymous = [("ckAPIToken", a.apiToken)]
            #expect(try await server.exchange("records/modify", Body.create("p1", title: "hello"), database: "public", query: a.query).itemCodes() == [nil])

            let read = try await server.exchange("records/lookup", Body.lookup("p1"), database: "public", query: anonymous)
            #expect(read.status == 200)
            #expect(read.itemCodes() == [nil])
            #expect(try await server.exchange("records/query", Body.query(), database: "public", query: anonymous).strings("records", "recordName") == ["p1"])

            let anonymousWrite = try await server.exchange("records/modify", Body.create("p2"), database: "public", query: anonymous)
            #expect(anonymousWrite.status == 421)
            #expect(anonymousWrite.serverErrorCode == "AUTHENTICATION_REQUIRED")
            #expect(try await server.exchange("records/lookup", Body.lookup("p2"), database: "public", query: anonymous).itemCodes() == ["NOT_FOUND"])

            #expect(
                try await server.exchange("records/modify", Body.forceUpdate("p1", title: "b"), database: "public", query: b.query).itemCodes() == [
                    "ACCESS_DENIED"
                ])
            #expect(try await server.exchange("records/modify", Body.forceDelete("p1"), database: "public", query: b.query).itemCodes() == ["ACCESS_DENIED"])
            #expect(try await server.exchange("records/modify", Body.create("b1"), database: "public", query: b.query).itemCodes() == [nil])
            #expect(
                try await server.exchange("records/modify", Body.forceUpdate("p1", title: "a again"), database: "public", query: a.query).itemCodes() == [nil])
            #expect(try await server.exchange("records/modify", Body.forceDelete("p1"), database: "public", query: a.query).itemCodes() == [nil])
        }
    }

    @Test func anAPITokenAloneCannotReachThePrivateOrSharedDatabase() async throws {
        try await withAuthServer { server in
            let a = try await server.signedInUser("a@example.com")
            for database in ["private", "shared"] {
                let reply = try await server.exchange("zones/list", method: "GET", database: database, query: [("ckAPIToken", a.apiToken)])
                #expect(reply.status == 421)
                #expect(reply.serverErrorCode == "AUTHENTICATION_REQUIRED")
                #expect(reply.json["redirectURL"]?.stringValue?.contains("/signin?ckAPIToken=") == true)
            }
        }
    }
}
