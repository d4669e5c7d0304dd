import Foundation
import StratusServer
import StratusTesting
import Testing

extension AttackSuite {
    /// Finding 11: a participant must not revoke a share for everyone by deleting it (or its root).
    @Suite("11 participant deletes the owner's share") struct ShareDeletionAttacks {
        static func share(name: String, root: String?, with emails: [String]) -> String {
            let people = emails.map {
                #"{"type":"USER","permission":"READ_WRITE","acceptanceStatus":"INVITED","userIdentity":{"lookupInfo":{"emailAddress":"\#($0)"}}}"#
            }
            let forRecord = root.map { #","forRecord":{"recordName":"\#($0)"}"# } ?? ""
            return
                #"{"zoneID":{"zoneName":"Projects"},"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"cloudkit.share","fields":{}\#(forRecord),"publicPermission":"NONE","participants":[\#(people.joined(separator: ","))]}}]}"#
        }

        static func sharedZone(_ owner: String) -> String { #""zoneID":{"zoneName":"Projects","ownerRecordName":"\#(owner)"},"# }

        /// A creates Projects with t1, shares it (zone-wide, or t1 as a record share) READ_WRITE with B and C, who accept.
        static func setUp(
            _ server: TestCloudKitServer, recordShare: Bool
        ) async throws -> (a: TestCloudKitServer.SignedInUser, b: TestCloudKitServer.SignedInUser, c: TestCloudKitServer.SignedInUser, share: String) {
            let a = try await server.signedInUser("a@example.com")
            let b = try await server.signedInUser("b@example.com")
            let c = try await server.signedInUser("c@example.com")
            #expect(try await server.exchange("zones/modify", Body.createZone("Projects"), query: a.query).itemCodes("zones") == [nil])
            #expect(try await server.exchange("records/modify", Body.create("t1", zone: "Projects"), query: a.query).itemCodes() == [nil])
            let name = recordShare ? "share-t1" : "cloudkit.zoneshare"
            let created = try await server.exchange(
                "records/modify", Self.share(name: name, root: recordShare ? "t1" : nil, with: ["b@example.com", "c@example.com"]), query: a.query)
            let guid = try #require(created.strings("records", "shortGUID").first, "\(created.text)")
            for user in [b, c] {
                let accepted = try await server.exchange(
                    "records/accept", #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, database: "public", query: user.query)
                #expect(accepted.text.contains(#""participantStatus":"ACCEPTED""#), "\(accepted.text)")
            }
            return (a, b, c, name)
        }

        static func canRead(_ user: TestCloudKitServer.SignedInUser, owner: String, on server: TestCloudKitServer) async throws -> Bool {
            let body = #"{\#(Self.sharedZone(owner))"records":[{"recordName":"t1"}]}"#
            return try await server.exchange("records/lookup", body, database: "shared", query: user.query).strings("records", "recordName") == ["t1"]
        }

        @Test(arguments: RecordStoreBackend.allCases) func aParticipantsDeletionOfAZoneShareRemovesOnlyThatParticipant(
            _ backend: RecordStoreBackend
        ) async throws {
            try await withAuthServer(backend: backend) { server in
                let (a, b, c, share) = try await Self.setUp(server, recordShare: false)
                let deletion = #"{\#(Self.sharedZone(a.recordName))"operations":[{"operationType":"forceDelete","record":{"recordName":"\#(share)"}}]}"#
                let deleted = try await server.exchange("records/modify", deletion, database: "shared", query: b.query)
                #expect(deleted.status == 200)
                #expect(deleted.itemCodes() == [nil], "B's deletion reads as B leaving: \(deleted.text)")

                // The share and everyone else's access stay; only B is gone.
                let read = try await server.exchange("records/lookup", Body.lookup(share, zone: "Projects"), query: a.query)
                #expect(read.strings("records", "recordName") == [share], "the owner's share was deleted: \(read.text)")
                #expect(try await Self.canRead(c, owner: a.recordName, on: server), "C lost access when B deleted the share")
                #expect(try await !Self.canRead(b, owner: a.recordName, on: server), "B still reads the zone after leaving")
                // B cannot delete it again (B is no longer a participant), nor can C's deletion revoke A's share.
                let again = try await server.exchange("records/modify", deletion, database: "shared", query: b.query)
                #expect(again.status != 200 || again.itemCodes() != [nil])
                _ = try await server.exchange("records/modify", deletion, database: "shared", query: c.query)
                #expect(try await server.exchange("records/lookup", Body.lookup(share, zone: "Projects"), query: a.query).itemCodes() == [nil])
            }
        }

        @Test(arguments: RecordStoreBackend.allCases) func aParticipantCannotDeleteTheRootOfARecordShare(_ backend: RecordStoreBackend) async throws {
            try await withAuthServer(backend: backend) { server in
                let (a, _, c, share) = try await Self.setUp(server, recordShare: true)
                let deletion = #"{\#(Self.sharedZone(a.recordName))"operations":[{"operationType":"forceDelete","record":{"recordName":"t1"}}]}"#
                let refused = try await server.exchange("records/modify", deletion, database: "shared", query: c.query)
                #expect(refused.itemCodes() == ["ACCESS_DENIED"], "\(refused.text)")
                #expect(try await server.exchange("records/lookup", Body.lookup(share, zone: "Projects"), query: a.query).itemCodes() == [nil])
                #expect(try await Self.canRead(c, owner: a.recordName, on: server))
            }
        }

        @Test func theOwnerStillDeletesTheShare() async throws {
            try await withAuthServer { server in
                let (a, b, _, share) = try await Self.setUp(server, recordShare: false)
                #expect(try await server.exchange("records/modify", Body.forceDelete(share, zone: "Projects"), query: a.query).itemCodes() == [nil])
                #expect(try await !Self.canRead(b, owner: a.recordName, on: server))
            }
        }
    }
}
