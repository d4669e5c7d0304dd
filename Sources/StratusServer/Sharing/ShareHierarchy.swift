import StratusCrypto
import StratusWire

/// Record-share hierarchies inside one store transaction: which share roots a record's `parent`
/// chain reaches, the hierarchy moves a write notes, and the change feed a participant sees.
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
        Set(try distances(from: record, to: roots, tx).keys)
    }

    /// ``roots(reachedFrom:among:_:)`` with each root's place in the chain (0 for the record itself).
    private static func distances(from record: StoredRecord, to roots: Set<String>, _ tx: any RecordStoreReader) throws -> [String: Int] {
        var reached: [String: Int] = [:]
        var current: StoredRecord? = record.isDeleted ? nil : record
        var seen: Set<String> = []
        while let step = current, seen.count < maximumDepth, seen.insert(step.recordName).inserted {
            if roots.contains(step.recordName) { reached[step.recordName] = seen.count - 1 }
            current = try RecordPresenter.parentName(of: step).flatMap { try tx.record(named: $0, inZone: record.zoneRowID) }
                .flatMap { $0.isDeleted ? nil : $0 }
        }
        return reached
    }

    /// How many descendants of a moved or deleted record a write follows into the moves table.
    static let maximumMovedDescendants = 10_000

    /// Notes, in the write's transaction, the record-share hierarchies each changed record — and
    /// every live descendant along with it — entered or left: by a deletion, or by a new `parent`
    /// whose chain reaches other roots. A participant's change feed shows these records again.
    static func recordMoves(_ changes: [RecordChange], zone: ZoneRow, _ tx: any RecordStoreWriter) throws {
        let shares = tx
        let moved = changes.filter { change in
            guard let before = change.before else { return false }
            // A deleted record without a parent reaches no root but its own, whose share goes with it.
            guard let after = change.after else { return RecordPresenter.parentName(of: before) != nil }
            return RecordPresenter.parentName(of: after) != RecordPresenter.parentName(of: before)
        }
        guard !moved.isEmpty else { return }
        let roots = try shares.recordShareRoots(inZone: zone.rowID)
        guard !roots.isEmpty else { return }
        for change in moved {
            guard let before = change.before else { continue }
            let old = try distances(from: before, to: roots, tx)
            let new = try change.after.map { try distances(from: $0, to: roots, tx) } ?? [:]
            let crossed = Set(old.keys).symmetricDifference(new.keys)
            guard
                !crossed.isEmpty,
                let sequence = try change.after?.changeSequence ?? tx.record(named: before.recordName, inZone: zone.rowID)?.changeSequence
            else { continue }
            for (name, level) in [(before.recordName, 0)] + (try descendants(of: before.recordName, zoneRowID: zone.rowID, tx)) {
                // A root counts only within the depth a walk from this record follows, before or after.
                for root in crossed.sorted() where [old[root], new[root]].contains(where: { $0.map { level + $0 < maximumDepth } ?? false }) {
                    try shares.putHierarchyMove(HierarchyMove(sequence: sequence, recordName: name, root: root), inZone: zone.rowID)
                }
            }
        }
    }

    /// The live records whose `parent` chain passes through `name`, with their distance below it
    /// (at most ``maximumMovedDescendants``, less than ``maximumDepth`` below).
    private static func descendants(of name: String, zoneRowID: Int64, _ tx: any RecordStoreReader) throws -> [(String, Int)] {
        var found: [(String, Int)] = []
        var seen: Set<String> = [name]
        var index = -1
        var current = (name, 0)
        while found.count < maximumMovedDescendants, current.1 + 1 < maximumDepth {
            for edge in try tx.references(toRecord: current.0, inZone: zoneRowID)
            where edge.fieldName == RecordPresenter.parentKey && edge.sourceZoneRowID == zoneRowID && seen.insert(edge.sourceRecordName).inserted {
                found.append((edge.sourceRecordName, current.1 + 1))
            }
            index += 1
            guard index < found.count else { break }
            current = found[index]
        }
        return Array(found.prefix(maximumMovedDescendants))
    }

    /// A zone's change feed as a participant of record shares rooted at `roots` sees it.
    static func feedView(roots: Set<String>) -> ZoneFeedView {
        let digest = String(SHA256.hash("record shares\n" + roots.sorted().joined(separator: "\n")).hexString.prefix(16))
        return ZoneFeedView(scope: digest) { page, tx in
            try visibleChanges(page, roots: roots, tx)
        }
    }

    /// The changes a participant may see on a page: its changed records and the records that
    /// entered or left one of `roots` within the page's sequences, each as it is now — a live
    /// record of the hierarchies as itself, any other as a deletion (name and type only; never
    /// without a token, when the participant has nothing to delete). Everything else is left out.
    private static func visibleChanges(_ page: ZoneFeedPage, roots: Set<String>, _ tx: any RecordStoreReader) throws -> [StoredRecord] {
        var moves: [HierarchyMove] = []
        if page.through > page.after ?? 0 {
            moves = try tx.hierarchyMoves(inZone: page.zoneRowID, sequences: (page.after ?? 0) + 1...page.through)
                .filter { roots.contains($0.root) }
        }
        let moved = Set(moves.map(\.recordName))
        var shown: [(sequence: Int64, record: StoredRecord)] = []
        var names: Set<String> = []
        func show(_ record: StoredRecord, at sequence: Int64) throws {
            guard names.insert(record.recordName).inserted else { return }
            if try !Self.roots(reachedFrom: record, among: roots, tx).isEmpty {
                shown.append((sequence, record))
            } else if page.after != nil, moved.contains(record.recordName) {
                var deletion = record
                deletion.isDeleted = true
                deletion.fields = [:]
                shown.append((sequence, deletion))
            }
        }
        for record in page.changes { try show(record, at: record.changeSequence) }
        for move in moves where !names.contains(move.recordName) {
            guard let record = try tx.record(named: move.recordName, inZone: page.zoneRowID) else { continue }
            if let types = page.recordTypes, !types.contains(record.recordType) { continue }
            try show(record, at: move.sequence)
        }
        return shown.sorted { $0.sequence < $1.sequence }.map(\.record)
    }
}

/// One page of a zone's change feed, before a ``ZoneFeedView`` filters it.
struct ZoneFeedPage: Sendable {
    /// The zone's row.
    var zoneRowID: Int64
    /// The changed records, in change order.
    var changes: [StoredRecord]
    /// The token's position (`nil` without a token).
    var after: Int64?
    /// The last change sequence the page covers (the next token's position).
    var through: Int64
    /// Only these record types, when given.
    var recordTypes: Set<String>?
}

/// A filtered view of a zone's change feed, in the page's own snapshot: its `scope` is sealed in
/// the sync tokens it issues, so a token works only for the view that issued it.
struct ZoneFeedView: Sendable {
    /// A digest naming the view (`nil` for the whole zone).
    var scope: String?
    /// The records to present for a page.
    var filter: @Sendable (_ page: ZoneFeedPage, _ tx: any RecordStoreReader) throws -> [StoredRecord]
}
