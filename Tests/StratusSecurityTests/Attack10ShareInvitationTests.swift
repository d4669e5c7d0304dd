import Foundation
import StratusServer
import StratusTesting
import Testing

extension AttackSuite {
    /// Finding 10: inviting an address to a share must not tell the inviter whose account it is.
    @Suite("10 share invitation reveals a hidden user") struct ShareInvitationAttacks {
        static func invite(_ email: String) -> String {
            #"{"zoneID":{"zoneName":"Projects"},"operations":[{"operationType":"create","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","fields":{},"publicPermission":"NONE","participants":[{"type":"USER","permission":"READ_ONLY","acceptanceStatus":"INVITED","userIdentity":{"lookupInfo":{"emailAddress":"\#(email)"}}}]}}]}"#
        }

        @Test(arguments: RecordStoreBackend.allCases) func invitingAnAddressDoesNotRevealANonDiscoverableUsersRecordName(
            _ backend: RecordStoreBackend
        ) async throws {
            try await withAuthServer(backend: backend) { server in
                let prober = try await server.signedInUser("prober@example.com")
                let hidden = try await server.signedInUser("hidden@example.com", discoverable: false)
                #expect(try await server.exchange("zones/modify", Body.createZone("Projects"), query: prober.query).itemCodes("zones") == [nil])

                let invited = try await server.exchange("records/modify", Self.invite("hidden@example.com"), query: prober.query)
                #expect(invited.itemCodes() == [nil], "\(invited.text)")
                #expect(!invited.text.contains(hidden.recordName), "the share's answer names the hidden user: \(invited.text)")
                let readBack = try await server.exchange("records/lookup", Body.lookup("cloudkit.zoneshare", zone: "Projects"), query: prober.query)
                #expect(!readBack.text.contains(hidden.recordName), "the share read back names the hidden user: \(readBack.text)")
                // Still the same answer as for an address nobody owns: nothing tells the two apart.
                #expect(readBack.text.contains("hidden@example.com"))
            }
        }

        @Test func aDiscoverableUserIsNamedAsUsersLookupEmailWouldName() async throws {
            try await withAuthServer { server in
                let owner = try await server.signedInUser("owner@example.com")
                let open = try await server.signedInUser("open@example.com", discoverable: true)
                #expect(try await server.exchange("zones/modify", Body.createZone("Projects"), query: owner.query).itemCodes("zones") == [nil])
                let invited = try await server.exchange("records/modify", Self.invite("open@example.com"), query: owner.query)
                #expect(invited.text.contains(open.recordName), "\(invited.text)")
            }
        }
    }
}
