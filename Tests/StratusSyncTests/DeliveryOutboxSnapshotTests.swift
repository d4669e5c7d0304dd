import Foundation
@testable import StratusSync
import StratusTesting
import StratusWire
import Testing

/// A delivery reads the outbox entries of all its fetched records in one transaction (one read per
/// record made an initial sync of 100,000 records slow), and must still see every entry queued
/// while it waits for the delegate: a fetched record is never applied over an edit waiting to go up.
@Suite struct DeliveryOutboxSnapshotTests {
    private static func save(_ name: String, title: String) -> OutboxEntry {
        OutboxEntry(
            seq: 0, kind: .save, recordType: "Note", recordName: name, fields: ["title": .string(title)], cleared: [], editedAt: Date())
    }

    /// Reading many records' entries at once gives what reading each one gives, in the same order.
    @Test func entriesReadTogetherMatchEntriesReadOneByOne() throws {
        let directory = try TemporaryDirectory()
        let bookkeeping = try SyncBookkeeping(path: directory.url.appendingPathComponent("sync.sqlite").path)
        _ = try bookkeeping.enqueue([Self.save("a", title: "1"), Self.save("b", title: "2")], coalescingAfter: nil)
        // In flight up to the last one: the next saves of "a" queue entries of their own.
        let floor = try bookkeeping.outboxEntries(limit: 10).last?.seq
        _ = try bookkeeping.enqueue([Self.save("a", title: "3")], coalescingAfter: floor)
        let together = try bookkeeping.outboxEntries(for: ["a", "b", "c"])
        #expect(together.keys.sorted() == ["a", "b"])
        for name in ["a", "b", "c"] {
            #expect((together[name] ?? []) == (try bookkeeping.outboxEntries(for: name)))
        }
        #expect(together["a"]?.map(\.fields["title"]) == [.string("1"), .string("3")])
        try bookkeeping.close()
    }

    /// A save queued after the snapshot was taken is seen; so is an entry removed since.
    @Test func aSnapshotSeesEveryOutboxWriteMadeAfterIt() throws {
        let directory = try TemporaryDirectory()
        let bookkeeping = try SyncBookkeeping(path: directory.url.appendingPathComponent("sync.sqlite").path)
        let queued = try bookkeeping.enqueue([Self.save("a", title: "1")], coalescingAfter: nil)
        let snapshot = try QueuedEntries(["a", "b"], in: bookkeeping)
        #expect(try snapshot.entries(for: "a").count == 1)
        #expect(try snapshot.entries(for: "b").isEmpty)

        _ = try bookkeeping.enqueue([Self.save("b", title: "edited while the delivery waited")], coalescingAfter: nil)
        #expect(try snapshot.entries(for: "b").map(\.recordName) == ["b"])

        try bookkeeping.removeOutboxEntry(queued[0])
        #expect(try snapshot.entries(for: "a").isEmpty)

        let later = try QueuedEntries(["a", "b"], in: bookkeeping)
        try bookkeeping.commitUploads(bases: [], removingOutbox: [])
        #expect(try later.entries(for: "b").count == 1)
        try bookkeeping.close()
    }
}
