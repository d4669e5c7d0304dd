import Foundation
import StratusClient
import StratusWire
import Testing

/// `Share` values: participants and the `records/modify` operation they become.
@Suite struct ShareTests {
    static let zone = ZoneID(zoneName: "Projects")

    /// A new record share is a `create` with `forRecord`; an updated one an `update` without it.
    @Test func saveOperationShapes() throws {
        let root = Record(recordType: "Note", recordID: RecordID(recordName: "r1", zoneID: Self.zone))
        var share = Share(rootRecord: root, shareRecordName: "s1")
        share.publicPermission = .readOnly
        share.addParticipant(Share.Participant(emailAddress: "b@example.com", permission: .readWrite))
        let json = try canonicalJSON(share.saveOperation)
        #expect(json.contains(#""operationType":"create""#))
        #expect(json.contains(#""forRecord":{"recordName":"r1"}"#))
        #expect(json.contains(#""recordType":"cloudkit.share""#))
        #expect(json.contains(#""publicPermission":"READ_ONLY""#))
        #expect(json.contains(#""emailAddress":"b@example.com""#))
        #expect(json.contains(#""permission":"READ_WRITE""#))

        var wire = StratusWire.Record(recordName: "s1", recordType: "cloudkit.share", recordChangeTag: ChangeTag("t1"), fields: [:])
        wire.participants = []
        let saved = Share(wire: wire, recordID: share.recordID, rootRecordID: root.recordID)
        let update = try canonicalJSON(saved.saveOperation)
        #expect(update.contains(#""operationType":"update""#))
        #expect(update.contains(#""participants":[]"#))
        #expect(!update.contains("forRecord"))
    }

    /// Adding a known participant replaces it (keeping its acceptance); removing matches e-mail case-insensitively.
    @Test func participantsMatchAndReplace() {
        var wire = StratusWire.Record(recordName: Share.zoneWideShareRecordName, recordType: "cloudkit.share")
        wire.participants = [
            ShareParticipant(
                userIdentity: UserIdentity(userRecordName: "_b", lookupInfo: UserLookupInfo(emailAddress: "B@example.com")),
                permission: .readOnly, type: .user, acceptanceStatus: .accepted, participantId: "p1"),
            ShareParticipant(userIdentity: UserIdentity(userRecordName: "_a"), permission: .readWrite, type: .owner),
        ]
        var share = Share(wire: wire, recordID: RecordID(recordName: Share.zoneWideShareRecordName, zoneID: Self.zone))
        #expect(share.isZoneWide && share.rootRecordID == nil)
        #expect(share.participants.count == 1)
        share.addParticipant(Share.Participant(userRecordName: "_b", permission: .readWrite))
        #expect(share.participants.count == 1)
        let b = share.participant(emailAddress: "b@example.com")
        #expect(b?.permission == .readWrite && b?.acceptanceStatus == .accepted && b?.participantID == "p1")
        share.addParticipant(Share.Participant(emailAddress: "c@example.com"))
        #expect(share.participants.count == 2)
        share.removeParticipant(emailAddress: "b@EXAMPLE.com")
        #expect(share.participants.map(\.emailAddress) == ["c@example.com"])
        share.removeParticipant(userRecordName: "_nobody")
        #expect(share.participants.count == 1)
    }
}
