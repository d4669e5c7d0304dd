import StratusPostgres
import StratusServer
import StratusServerPostgres
import StratusTesting
import StratusWire
import Testing

@Suite(.enabled(if: PostgresScratch.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"))
struct PostgresRecordStoreSequenceTests {
    static let database = DatabaseKey(container: "iCloud.test", environment: .development, scope: .private, owner: "_owner")

    @Test func concurrentWritersOfOneZoneNeverFailAndLeaveNoGapOrDuplicate() async throws {
        let url = try PostgresTestDatabase.url()
        let store = try await PostgresRecordStore.openTemporary(url: url, connections: 6)
        let zone = try await store.write { tx in try tx.createZone(named: "Hot", in: Self.database, createdAt: 1) }
        let writers = 12
        let writesEach = 15
        // Readers page the feed while the writers run: a snapshot must never show a later
        // sequence without every earlier one.
        async let audit: [Int64] = Self.auditFeed(store, zone: zone.rowID, until: Int64(writers * writesEach))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for index in 0..<writesEach {
                        try await store.write { tx in
                            _ = try tx.record(named: "r\(writer)-\(index)", inZone: zone.rowID)
                            let sequence = try tx.nextChangeSequence(inZone: zone.rowID)
                            let stamp = StoredRecord.Stamp(timestamp: sequence, userRecordName: "_owner", deviceID: "d")
                            try tx.putRecord(
                                StoredRecord(
                                    zoneRowID: zone.rowID, recordName: "r\(writer)-\(index)", recordType: "Note",
                                    changeTag: String(sequence, radix: 36), fields: [:], created: stamp, modified: stamp,
                                    changeSequence: sequence
                                ),
                                references: []
                            )
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let seen = try await audit
        let total = writers * writesEach
        let feed = try await store.read { tx in try tx.recordChanges(inZone: zone.rowID, after: 0, limit: 10_000, recordTypes: nil) }
        #expect(feed.map(\.changeSequence) == Array(1...Int64(total)))
        #expect(seen == Array(1...Int64(total)))
        let stored = try await store.read { tx in try tx.zone(rowID: zone.rowID) }
        #expect(stored?.changeSequence == Int64(total))
        try await store.close()
    }

    /// Follows the change feed like a syncing client until `until`, failing on a gap.
    static func auditFeed(_ store: PostgresRecordStore, zone: Int64, until: Int64) async throws -> [Int64] {
        var seen: [Int64] = []
        var position: Int64 = 0
        while position < until {
            let after = position
            let page = try await store.read { tx in
                let zoneRow = try tx.zone(rowID: zone)
                let changes = try tx.recordChanges(inZone: zone, after: after, limit: 7, recordTypes: nil)
                return (zoneRow?.changeSequence ?? 0, changes.map(\.changeSequence))
            }
            for sequence in page.1 {
                #expect(sequence == position + 1, "the feed skipped from \(position) to \(sequence)")
                seen.append(sequence)
                position = sequence
            }
            if page.1.isEmpty {
                #expect(page.0 == position, "the zone says \(page.0) but the feed ends at \(position)")
                try await Task.sleep(nanoseconds: 2_000_000)
            }
        }
        return seen
    }
}
