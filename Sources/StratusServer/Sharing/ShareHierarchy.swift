import StratusCrypto
import StratusWire

/// Record-share hierarchies inside one store transaction: which share roots a record's `parent`
/// chain reaches, the departures a write leaves behind, and the change feed a participant sees.
///
/// ```swift
/// let reached = try ShareHierarchy.roots(reachedFrom: record, among: ["root"], tx)
/// ```
enum ShareHierarchy {
    /// How far up a `parent` chain a walk looks for a share's root.
    static let maximumDepth = 256

    /// The roots among `roots` that the live record reaches through its chain of live parents,
    /// itself included (at most ``maximumDepth`` steps).
    static func roots(reachedFrom record: StoredRecord, among roots: Set<String>, _ tx: any RecordStoreReader) throws -> Set<String> {
        var reached: Set<String> = []
        var current: StoredRecord? = record.isDeleted ? nil : record
        var seen: Set<String> = []
        while let step = current, seen.count < maximumDepth, seen.insert(step.recordName).inserted {
            if roots.contains(step.recordName) { reached.insert(step.recordName) }
            current = try RecordPresenter.parentName(of: step).flatMap { try tx.record(named: $0, inZone: record.zoneRowID) }
                .flatMap { $0.isDeleted ? nil : $0 }
        }
        return reached
    }

    /// Notes, in the write's transaction, the record-share roots each changed record left: by a
    /// deletion, or by a new `parent` whose chain no longer reaches them. A participant's change
    /// feed turns a departure from one of their roots into a deletion.
    static func recordDepartures(_ changes: [RecordChange], zone: ZoneRow, _ tx: any RecordStoreWriter) throws {
        guard let shares = tx as? any ShareStoreWriter else { return }
        let moved = changes.filter { change in
            guard let before = change.before, let parent = RecordPresenter.parentName(of: before) else { return false }
            guard let after = change.after else { return true }
            return RecordPresenter.parentName(of: after) != parent
        }
        guard !moved.isEmpty else { return }
        let roots = try shares.recordShareRoots(inZone: zone.rowID)
        guard !roots.isEmpty else { return }
        for change in moved {
            guard let before = change.before else { continue }
            var left = try Self.roots(reachedFrom: before, among: roots, tx)
            guard !left.isEmpty else { continue }
            if let after = change.after { left.subtract(try Self.roots(reachedFrom: after, among: roots, tx)) }
            guard
                !left.isEmpty,
                let sequence = try change.after?.changeSequence ?? tx.record(named: before.recordName, inZone: zone.rowID)?.changeSequence
            else { continue }
            for root in left.sorted() {
                try shares.putDeparture(recordName: before.recordName, root: root, sequence: sequence, inZone: zone.rowID)
            }
        }
    }

    /// A zone's change feed as a participant of record shares rooted at `roots` sees it.
    static func feedView(roots: Set<String>) -> ZoneFeedView {
        let digest = String(SHA256.hash("record shares\n" + roots.sorted().joined(separator: "\n")).hexString.prefix(16))
        return ZoneFeedView(scope: digest) { changes, after, tx in
            try visibleChanges(changes, after: after, roots: roots, tx)
        }
    }

    /// The changes a participant may see: live records of the hierarchies as they are, and as
    /// deletions the records that left one of `roots` after `after` (never without a token, when
    /// the participant has nothing to delete). Everything else is left out.
    private static func visibleChanges(
        _ changes: [StoredRecord], after: Int64?, roots: Set<String>, _ tx: any RecordStoreReader
    ) throws -> [StoredRecord] {
        var covered: Set<String> = []
        var others: [String] = []
        for record in changes {
            if try !Self.roots(reachedFrom: record, among: roots, tx).isEmpty {
                covered.insert(record.recordName)
            } else {
                others.append(record.recordName)
            }
        }
        var departed: Set<String> = []
        if let after, !others.isEmpty, let shares = tx as? any ShareStoreReader, let zoneRowID = changes.first?.zoneRowID {
            for (name, left) in try shares.departures(of: others, inZone: zoneRowID, after: after) where !left.isDisjoint(with: roots) {
                departed.insert(name)
            }
        }
        return changes.compactMap { record in
            if covered.contains(record.recordName) { return record }
            guard departed.contains(record.recordName) else { return nil }
            var deletion = record
            deletion.isDeleted = true
            deletion.fields = [:]
            return deletion
        }
    }
}

/// A filtered view of a zone's change feed, in the page's own snapshot: its `scope` is sealed in
/// the sync tokens it issues, so a token works only for the view that issued it.
struct ZoneFeedView: Sendable {
    /// A digest naming the view (`nil` for the whole zone).
    var scope: String?
    /// The changes to present, given the page's changes and the token's position (`nil` without one).
    var filter: @Sendable (_ changes: [StoredRecord], _ after: Int64?, _ tx: any RecordStoreReader) throws -> [StoredRecord]
}
