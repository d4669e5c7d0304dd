import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Sharing (Apple's CloudKit Web Services Reference: “records/modify”, “records/resolve”, “records/accept”, “zones/list”): share records, resolve and accept, and the shared database.
@Suite struct SharingTests {
    static func share(
        _ operation: String = "create", name: String = "cloudkit.zoneshare", forRecord: String? = nil, publicPermission: String = "NONE",
        participants: [(email: String, permission: String)]
    ) -> String {
        let people = participants.map {
            #"{"type":"USER","permission":"\#($0.permission)","acceptanceStatus":"INVITED","userIdentity":{"lookupInfo":{"emailAddress":"\#($0.email)"}}}"#
        }
        let root = forRecord.map { #","forRecord":{"recordName":"\#($0)"}"# } ?? ""
        return
            #"{"zoneID":{"zoneName":"Projects"},"operations":[{"operationType":"\#(operation)","record":{"recordName":"\#(name)","recordType":"cloudkit.share","fields":{}\#(root),"publicPermission":"\#(publicPermission)","participants":[\#(people.joined(separator: ","))]}}]}"#
    }

    static func guids(_ value: String) -> String { #"{"shortGUIDs":[{"value":"\#(value)","shouldFetchRootRecord":true}]}"# }

    static func zone(owner: String) -> String { #"{"zoneName":"Projects","ownerRecordName":"\#(owner)"}"# }

    @Test(arguments: RecordStoreBackend.allCases) func aZoneSharedReadOnlyThenReadWriteThenRemoved(_ backend: RecordStoreBackend) async throws {
        try await withAuthServer(backend: backend) { server in
            let a = try await server.signedInUser("a@example.com")
            let b = try await server.signedInUser("b@example.com")
            let c = try await server.signedInUser("c@example.com")
            #expect(try await server.exchange("zones/modify", Body.createZone("Projects"), query: a.query).itemCodes("zones") == [nil])
            #expect(try await server.exchange("records/modify", Body.create("t1", zone: "Projects", title: "plan"), query: a.query).itemCodes() == [nil])

            // A shares the zone read-only with B.
            let created = try await server.exchange("records/modify", Self.share(participants: [("b@example.com", "READ_ONLY")]), query: a.query)
            #expect(created.itemCodes() == [nil], "\(created.text)")
            let guid = try #require(created.strings("records", "shortGUID").first)
            #expect(created.text.contains(#""acceptanceStatus":"INVITED""#))
            #expect(!created.text.contains(b.recordName), "B is not discoverable: the share names B by address until B accepts")

            // Nothing in B's shared database until B accepts.
            #expect(try await server.exchange("zones/list", method: "GET", database: "shared", query: b.query).zoneNames.isEmpty)
            let lookupBody = #"{"zoneID":\#(Self.zone(owner: a.recordName)),"records":[{"recordName":"t1"}]}"#
            #expect(try await server.exchange("records/lookup", lookupBody, database: "shared", query: b.query).serverErrorCode == "ZONE_NOT_FOUND")
            let preview = try await server.exchange("records/resolve", Self.guids(guid), database: "public", query: b.query)
            #expect(preview.status == 200)
            #expect(preview.text.contains(#""participantStatus":"INVITED""#))
            #expect(preview.text.contains(#""databaseScope":"SHARED""#))
            // C is not a participant: no preview, no acceptance.
            #expect(try await server.exchange("records/accept", Self.guids(guid), database: "public", query: c.query).text.contains("ACCESS_DENIED"))
            let accepted = try await server.exchange("records/accept", Self.guids(guid), database: "public", query: b.query)
            #expect(accepted.text.contains(#""participantStatus":"ACCEPTED""#), "\(accepted.text)")
            #expect(accepted.text.contains(#""participantPermission":"READ_ONLY""#))
            // The owner reads the share back with its participants, B now ACCEPTED.
            let shareRead = try await server.exchange("records/lookup", Body.lookup("cloudkit.zoneshare", zone: "Projects"), query: a.query)
            #expect(shareRead.text.contains(#""acceptanceStatus":"ACCEPTED""#), "\(shareRead.text)")
            #expect(shareRead.strings("records", "shortGUID") == [guid])

            // B reads through the shared database, with A as the zone's owner.
            let zones = try await server.exchange("zones/list", method: "GET", database: "shared", query: b.query)
            #expect(zones.zoneNames == ["Projects"])
            #expect(zones.text.contains(a.recordName))
            let read = try await server.exchange("records/lookup", lookupBody, database: "shared", query: b.query)
            #expect(read.strings("records", "recordName") == ["t1"], "\(read.text)")
            #expect(read.text.contains(#""ownerRecordName":"\#(a.recordName)""#))
            let query = try await server.exchange(
                "records/query", #"{"zoneID":\#(Self.zone(owner: a.recordName)),"query":{"recordType":"Note"}}"#, database: "shared", query: b.query)
            #expect(query.strings("records", "recordName") == ["t1"], "\(query.text)")
            let changes = try await server.exchange("records/changes", #"{"zoneID":\#(Self.zone(owner: a.recordName))}"#, database: "shared", query: b.query)
            #expect(changes.strings("records", "recordName").contains("t1"))
            let feeds = try await server.exchange(
                "changes/zone", #"{"zones":[{"zoneID":\#(Self.zone(owner: a.recordName))},{"zoneID":{"zoneName":"Other"}}]}"#, database: "shared",
                query: b.query)
            #expect(feeds.itemCodes("zones") == [nil, "ZONE_NOT_FOUND"], "\(feeds.text)")
            #expect(feeds.text.contains(#""recordName":"t1""#))
            let first = try await server.exchange("changes/database", "{}", database: "shared", query: b.query)
            #expect(first.zoneNames == ["Projects"], "\(first.text)")
            let databaseToken = try #require(first.json["syncToken"]?.stringValue)
            let since = #"{"syncToken":\#(Body.quoted(databaseToken))}"#
            #expect(try await server.exchange("changes/database", since, database: "shared", query: b.query).zoneNames.isEmpty)
            #expect(try await server.exchange("changes/database", since, database: "shared", query: c.query).status == 400)
            #expect(try await server.exchange("records/lookup", lookupBody, database: "shared", query: c.query).serverErrorCode == "ZONE_NOT_FOUND")

            // B cannot write while read-only.
            let write =
                #"{"zoneID":\#(Self.zone(owner: a.recordName)),"operations":[{"operationType":"forceUpdate","record":{"recordName":"t1","recordType":"Note","fields":{"title":{"value":"by B"}}}}]}"#
            let refused = try await server.exchange("records/modify", write, database: "shared", query: b.query)
            #expect(refused.serverErrorCode == "ACCESS_DENIED")
            // Nor change the share.
            #expect(
                try await server.exchange(
                    "records/modify",
                    Self.share("forceUpdate", participants: [("b@example.com", "READ_WRITE")]).replacingOccurrences(
                        of: #""zoneName":"Projects""#, with: #""zoneName":"Projects","ownerRecordName":"\#(a.recordName)""#), database: "shared", query: b.query
                ).itemCodes() != [nil])

            // A upgrades B to read-write; B writes and A sees the change.
            #expect(
                try await server.exchange("records/modify", Self.share("forceUpdate", participants: [("b@example.com", "READ_WRITE")]), query: a.query)
                    .itemCodes() == [nil])
            let written = try await server.exchange("records/modify", write, database: "shared", query: b.query)
            #expect(written.itemCodes() == [nil], "\(written.text)")
            let seen = try await server.exchange("records/lookup", Body.lookup("t1", zone: "Projects"), query: a.query)
            #expect(seen.text.contains("by B"))
            #expect(seen.text.contains(#""userRecordName":"\#(b.recordName)""#))
            #expect(try await server.exchange("changes/database", since, database: "shared", query: b.query).zoneNames == ["Projects"])

            // A removes B: B sees nothing, at once.
            #expect(try await server.exchange("records/modify", Self.share("forceUpdate", participants: []), query: a.query).itemCodes() == [nil])
            #expect(try await server.exchange("zones/list", method: "GET", database: "shared", query: b.query).zoneNames.isEmpty)
            #expect(try await server.exchange("records/lookup", lookupBody, database: "shared", query: b.query).serverErrorCode == "ZONE_NOT_FOUND")
            #expect(try await server.exchange("records/modify", write, database: "shared", query: b.query).serverErrorCode == "ZONE_NOT_FOUND")
            let removed = try await server.exchange("changes/database", since, database: "shared", query: b.query)
            #expect(removed.text.contains(#""deleted":true"#), "\(removed.text)")
        }
    }

    @Test(arguments: RecordStoreBackend.allCases) func deletingTheShareTakesAccessAway(_ backend: RecordStoreBackend) async throws {
        try await withAuthServer(backend: backend) { server in
            let a = try await server.signedInUser("a@example.com")
            let b = try await server.signedInUser("b@example.com")
            _ = try await server.exchange("zones/modify", Body.createZone("Projects"), query: a.query)
            _ = try await server.exchange("records/modify", Body.create("t1", zone: "Projects"), query: a.query)
            let created = try await server.exchange("records/modify", Self.share(publicPermission: "READ_ONLY", participants: []), query: a.query)
            let guid = try #require(created.strings("records", "shortGUID").first)
            // Anyone with the URL may join a public share.
            let joined = try await server.exchange("records/accept", Self.guids(guid), database: "public", query: b.query)
            #expect(joined.text.contains(#""participantType":"PUBLIC_USER""#), "\(joined.text)")
            #expect(try await server.exchange("zones/list", method: "GET", database: "shared", query: b.query).zoneNames == ["Projects"])
            #expect(try await server.exchange("records/modify", Body.forceDelete("cloudkit.zoneshare", zone: "Projects"), query: a.query).itemCodes() == [nil])
            #expect(try await server.exchange("zones/list", method: "GET", database: "shared", query: b.query).zoneNames.isEmpty)
            #expect(try await server.exchange("records/resolve", Self.guids(guid), database: "public", query: b.query).text.contains("NOT_FOUND"))
        }
    }

    @Test(arguments: RecordStoreBackend.allCases) func aRecordShareCarriesTheRootsShortGUID(_ backend: RecordStoreBackend) async throws {
        try await withAuthServer(backend: backend) { server in
            let a = try await server.signedInUser("a@example.com")
            let b = try await server.signedInUser("b@example.com")
            _ = try await server.exchange("zones/modify", Body.createZone("Projects"), query: a.query)
            let root =
                #"{"zoneID":{"zoneName":"Projects"},"operations":[{"operationType":"create","record":{"recordName":"p1","recordType":"Note","createShortGUID":true,"fields":{"title":{"value":"root"}}}}]}"#
            let saved = try await server.exchange("records/modify", root, query: a.query)
            let rootGUID = try #require(saved.strings("records", "shortGUID").first)
            #expect(rootGUID.count >= 22)
            let share = try await server.exchange(
                "records/modify", Self.share(name: "s1", forRecord: "p1", participants: [("b@example.com", "READ_WRITE")]), query: a.query)
            #expect(share.strings("records", "shortGUID") == [rootGUID], "\(share.text)")
            let missing = try await server.exchange("records/modify", Self.share(name: "s2", forRecord: "nope", participants: []), query: a.query)
            #expect(missing.itemCodes() == ["NOT_FOUND"])
            let preview = try await server.exchange("records/resolve", Self.guids(rootGUID), database: "public", query: b.query)
            #expect(preview.text.contains(#""rootRecordName":"p1""#), "\(preview.text)")
            #expect(preview.text.contains("root"))
            #expect(preview.text.contains(#""participantPermission":"READ_WRITE""#))
            // Shares live only in custom zones of the owner's private database.
            let inDefault = #"{"operations":[{"operationType":"create","record":{"recordName":"s3","recordType":"cloudkit.share","fields":{}}}]}"#
            #expect(try await server.exchange("records/modify", inDefault, query: a.query).itemCodes() == ["BAD_REQUEST"])
            // records/resolve belongs to the public database.
            #expect(try await server.exchange("records/resolve", Self.guids(rootGUID), query: b.query).status == 400)
        }
    }
}
