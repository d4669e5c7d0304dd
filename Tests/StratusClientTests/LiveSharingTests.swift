import Foundation
import StratusClient
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Sharing and user identities through the SDK, against a server that requires authentication.
@Suite struct LiveSharingTests {
    /// A container signed in as `user`.
    static func device(_ server: TestCloudKitServer, _ user: TestCloudKitServer.SignedInUser) -> Container {
        Container(
            identifier: TestCloudKitServer.container, environment: .development, serverURL: server.http.url(""),
            authentication: .apiToken(user.apiToken, webAuthToken: user.webAuthToken), configuration: .fastTests)
    }

    /// Runs `body` with a fresh authenticated server and two users, A and B (B discoverable).
    static func withTwoUsers(
        _ body: (TestCloudKitServer, TestCloudKitServer.SignedInUser, TestCloudKitServer.SignedInUser) async throws -> Void
    ) async throws {
        let server = try await TestCloudKitServer.startAuthenticated()
        do {
            let a = try await server.signedInUser("a@example.com")
            let b = try await server.signedInUser(
                "b@example.com", discoverable: true, names: NameComponents(givenName: "Bea", familyName: "Baker"))
            try await body(server, a, b)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// A shares a zone read-only with B; B accepts and reads; B's write is refused; A upgrades B,
    /// B writes; A removes B and B sees nothing.
    @Test func zoneShareLifecycle() async throws {
        try await Self.withTwoUsers { server, a, b in
            let ownerDB = Self.device(server, a).privateCloudDatabase
            let bob = Self.device(server, b)
            let zone = try await ownerDB.save(RecordZone(zoneName: "Projects"))
            var plan = Record(recordType: "Note", recordID: RecordID(recordName: "plan", zoneID: zone.zoneID))
            plan["title"] = "the plan"
            try await ownerDB.save(plan)

            var share = Share(recordZoneID: zone.zoneID)
            share.addParticipant(Share.Participant(emailAddress: "b@example.com", permission: .readOnly))
            share = try await ownerDB.save(share)
            let guid = try #require(share.shortGUID)
            #expect(share.isZoneWide)
            #expect(share.owner?.userRecordName == a.recordName)
            #expect(share.participants.count == 1)
            #expect(share.participant(emailAddress: "B@example.com")?.userRecordName == b.recordName)
            #expect(share.participant(userRecordName: b.recordName)?.acceptanceStatus == .invited)

            // Not in B's shared database before accepting.
            #expect(try await bob.sharedCloudDatabase.allRecordZones().isEmpty)
            let preview = try await bob.shareMetadata(shortGUID: guid)
            #expect(preview.participantStatus == .invited)
            #expect(preview.databaseScope == .shared)
            #expect(preview.ownerIdentity?.userRecordName == a.recordName)

            let accepted = try await bob.acceptShare(shortGUID: guid)
            #expect(accepted.participantStatus == .accepted)
            #expect(accepted.participantPermission == .readOnly)
            let sharedZoneID = try #require(accepted.zoneID)
            #expect(sharedZoneID.ownerRecordName == a.recordName)

            // B reads through the shared database.
            let zones = try await bob.sharedCloudDatabase.allRecordZones()
            #expect(zones.map(\.zoneID.zoneName) == ["Projects"])
            let sharedID = RecordID(recordName: "plan", zoneID: sharedZoneID)
            var seen = try await bob.sharedCloudDatabase.record(for: sharedID)
            #expect(seen["title"] == "the plan")

            // Read-only: B's write is refused.
            seen["title"] = "by B"
            let refused = try await #require(throws: StratusError.self) { try await bob.sharedCloudDatabase.save(seen) }
            #expect(refused.code == .permissionFailure)

            // The owner sees B accepted, upgrades B to read-write; B writes.
            var current = try await ownerDB.zoneShare(for: zone.zoneID)
            #expect(current.participant(userRecordName: b.recordName)?.acceptanceStatus == .accepted)
            #expect(current.shortGUID == guid)
            current.addParticipant(Share.Participant(userRecordName: b.recordName, permission: .readWrite))
            current = try await ownerDB.save(current)
            #expect(current.participants.count == 1)
            #expect(current.participant(userRecordName: b.recordName)?.permission == .readWrite)
            #expect(current.participant(userRecordName: b.recordName)?.acceptanceStatus == .accepted)
            try await bob.sharedCloudDatabase.save(seen)
            let written = try await ownerDB.record(for: plan.recordID)
            #expect(written["title"] == "by B")
            #expect(written.lastModifiedUserRecordName == b.recordName)

            // A removes B: B sees nothing.
            current.removeParticipant(emailAddress: "b@example.com")
            #expect(current.participants.isEmpty)
            current = try await ownerDB.save(current)
            #expect(current.participants.isEmpty)
            #expect(try await bob.sharedCloudDatabase.allRecordZones().isEmpty)
            let gone = try await #require(throws: StratusError.self) { try await bob.sharedCloudDatabase.record(for: sharedID) }
            #expect(gone.code == .zoneNotFound)
        }
    }

    /// A record share carries the root's short GUID; deleting a share takes access away; strangers
    /// and unknown GUIDs fail with permission and unknown-item errors.
    @Test func recordShareAndDeletion() async throws {
        try await Self.withTwoUsers { server, a, b in
            let ownerDB = Self.device(server, a).privateCloudDatabase
            let bob = Self.device(server, b)
            let zone = try await ownerDB.save(RecordZone(zoneName: "Docs"))
            var root = Record(recordType: "Note", recordID: RecordID(recordName: "root", zoneID: zone.zoneID))
            root["title"] = "root"
            root = try await ownerDB.save(root)

            var share = Share(rootRecord: root)
            share.addParticipant(Share.Participant(userRecordName: b.recordName, permission: .readWrite))
            share = try await ownerDB.save(share)
            #expect(share.rootRecordID == root.recordID)
            #expect(!share.isZoneWide)
            let guid = try #require(share.shortGUID)
            let fetched = try await ownerDB.share(withID: share.recordID)
            #expect(fetched.participant(userRecordName: b.recordName)?.permission == .readWrite)
            // The root, fetched again, names its share, so the share can be found from the record.
            let refetchedRoot = try await ownerDB.record(for: root.recordID)
            #expect(try await ownerDB.share(for: refetchedRoot).recordID == share.recordID)

            let preview = try await bob.shareMetadata(shortGUID: guid, fetchRootRecord: true)
            #expect(preview.rootRecordID?.recordName == "root")
            #expect(preview.rootRecord?["title"] == "root")
            #expect(preview.participantPermission == .readWrite)

            // A stranger may not look; an unknown GUID is unknown.
            let stranger = Self.device(server, try await server.signedInUser("c@example.com"))
            let denied = try await #require(throws: StratusError.self) { try await stranger.acceptShare(shortGUID: guid) }
            #expect(denied.code == .permissionFailure)
            let unknown = try await #require(throws: StratusError.self) { try await bob.shareMetadata(shortGUID: "nope") }
            #expect(unknown.code == .unknownItem)

            // A root that does not exist cannot be shared.
            let ghost = Record(recordType: "Note", recordID: RecordID(recordName: "ghost", zoneID: zone.zoneID))
            let missing = try await #require(throws: StratusError.self) { try await ownerDB.save(Share(rootRecord: ghost)) }
            #expect(missing.code == .unknownItem)

            // A zone share accepted, then deleted: access is gone.
            let zoneShare = try await ownerDB.shareZone(zone.zoneID, participants: [Share.Participant(emailAddress: "b@example.com")])
            try await bob.acceptShare(shortGUID: try #require(zoneShare.shortGUID))
            #expect(try await bob.sharedCloudDatabase.allRecordZones().count == 1)
            try await ownerDB.deleteShare(zoneShare)
            #expect(try await bob.sharedCloudDatabase.allRecordZones().isEmpty)
            let afterDelete = try await #require(throws: StratusError.self) { try await ownerDB.zoneShare(for: zone.zoneID) }
            #expect(afterDelete.code == .unknownItem)
        }
    }

    /// users/caller names the signed-in user; discovery finds discoverable users only.
    @Test func identityAndDiscovery() async throws {
        try await Self.withTwoUsers { server, a, b in
            let alice = Self.device(server, a)
            let bob = Self.device(server, b)
            #expect(try await alice.userIdentity().userRecordName == a.recordName)
            let me = try await bob.userIdentity()
            #expect(me.userRecordName == b.recordName)

            let byEmail = try await alice.discoverUserIdentities(emails: ["b@example.com", "a@example.com", "nobody@example.com"])
            #expect(byEmail.map(\.userRecordName) == [b.recordName])
            #expect(byEmail.first?.nameComponents?.givenName == "Bea")
            let byName = try await alice.discoverUserIdentities(userRecordNames: [b.recordName, a.recordName])
            #expect(byName.map(\.userRecordName) == [b.recordName])
            #expect(try await alice.discoverUserIdentities(emails: []).isEmpty)

            // Without a web auth token there is no user.
            let anonymous = Container(
                identifier: TestCloudKitServer.container, environment: .development, serverURL: server.http.url(""),
                authentication: .apiToken(a.apiToken), configuration: .fastTests)
            let error = try await #require(throws: StratusError.self) { try await anonymous.userIdentity() }
            #expect(error.code == .notAuthenticated)
        }
    }
}
