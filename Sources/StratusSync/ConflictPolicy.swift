public import Foundation
public import StratusWire

/// How a conflict between a local edit and a newer server version is resolved.
///
/// A conflict arises when an upload finds that the server's record changed since this device last
/// synced it. Every policy produces one set of fields that both the server and this device then
/// hold; values that lose are reported through ``SyncDelegate/syncController(_:didResolve:)``.
public enum ConflictPolicy: Sendable {
    /// The server's version stays; the local edit is dropped (and reported).
    case serverWins
    /// The local version replaces the server's for every field this device changed since it last
    /// synced the record (every field, when it never did); fields it did not change keep the
    /// server's value, so another device's newer edit of them is not reverted.
    case clientWins
    /// Whole record: the later change wins, compared on the server's timeline (the server's
    /// modification date against the local edit time corrected by the skew observed against the server).
    case latestChangeWins
    /// Field by field against the last-synced version: a field changed on one side only takes that
    /// side's value; lists changed on both sides merge their additions and removals; other fields
    /// changed on both sides take the later change. The default.
    case threeWayMerge
    /// The app decides: given base, local and server versions, return the fields to keep.
    case custom(@Sendable (ConflictVersions) -> [String: FieldValue])
}

/// The versions of a conflicting record, by record field name.
public struct ConflictVersions: Sendable {
    /// The record type.
    public var recordType: String
    /// The record name.
    public var recordName: String
    /// The fields as last synced by this device; `nil` when it never synced the record.
    public var base: [String: FieldValue]?
    /// The fields as this device wants them.
    public var local: [String: FieldValue]
    /// The fields the server holds now.
    public var server: [String: FieldValue]
    /// The record fields the entity type writes (others are left as the server has them).
    public var keys: Set<String>
    /// When the local edit was made, on the server's timeline.
    public var localEditDate: Date
    /// When the server's version was written, by the server's clock.
    public var serverModificationDate: Date?
}

/// A resolved conflict, reported so that no write is lost silently.
public struct SyncConflict: Sendable {
    /// The versions that conflicted.
    public var versions: ConflictVersions
    /// The fields both sides hold now.
    public var resolved: [String: FieldValue]
    /// Local values that did not survive, by field.
    public var discardedLocal: [String: FieldValue?]
    /// Server values that did not survive, by field.
    public var discardedServer: [String: FieldValue?]
    /// Whether the server's record was deleted: the deletion wins, and every field of the local edit
    /// is in ``discardedLocal`` (the entity is deleted by the same sync).
    public var serverRecordDeleted = false
}

/// The pure resolution logic (no I/O), shared by every policy.
enum ConflictResolver {
    /// The fields to keep for `keys`, under `policy`.
    static func resolve(_ versions: ConflictVersions, policy: ConflictPolicy) -> [String: FieldValue] {
        let localIsLater = versions.serverModificationDate.map { versions.localEditDate > $0 } ?? true
        var result: [String: FieldValue] = [:]
        switch policy {
        case .serverWins:
            result = versions.server.filter { versions.keys.contains($0.key) }
        case .clientWins:
            for key in versions.keys {
                let changedHere = versions.base.map { $0[key] != versions.local[key] } ?? true
                result[key] = changedHere ? versions.local[key] : versions.server[key]
            }
        case .latestChangeWins:
            result = (localIsLater ? versions.local : versions.server).filter { versions.keys.contains($0.key) }
        case .custom(let resolve):
            result = resolve(versions).filter { versions.keys.contains($0.key) }
        case .threeWayMerge:
            for key in versions.keys {
                let base = versions.base?[key]
                let local = versions.local[key]
                let server = versions.server[key]
                let value: FieldValue?
                if local == server {
                    value = local
                } else if versions.base != nil, local == base {
                    value = server
                } else if versions.base != nil, server == base {
                    value = local
                } else if let merged = mergeLists(base: base, local: local, server: server) {
                    value = merged
                } else {
                    value = localIsLater ? local : server
                }
                result[key] = value
            }
        }
        return result
    }

    /// The conflict report: what each side loses under `resolved`.
    static func report(_ versions: ConflictVersions, resolved: [String: FieldValue]) -> SyncConflict {
        var lostLocal: [String: FieldValue?] = [:]
        var lostServer: [String: FieldValue?] = [:]
        for key in versions.keys {
            let local = versions.local[key]
            let base = versions.base?[key]
            // Local work survives when it is in the result, or (lists) when its additions and removals are.
            let survived = local == resolved[key] || mergeLists(base: base, local: local, server: resolved[key]) == resolved[key]
            if !survived, local != base {
                lostLocal[key] = local
            }
            if versions.server[key] != resolved[key] { lostServer[key] = versions.server[key] }
        }
        return SyncConflict(versions: versions, resolved: resolved, discardedLocal: lostLocal, discardedServer: lostServer)
    }

    /// Merges two edits of a list: the server's list, plus local additions, minus local removals.
    static func mergeLists(base: FieldValue?, local: FieldValue?, server: FieldValue?) -> FieldValue? {
        switch (base, local, server) {
        case (.referenceList(let b)?, .referenceList(let l)?, .referenceList(let s)?):
            return .referenceList(merge(base: b, local: l, server: s, key: \.recordName))
        case (.none, .referenceList(let l)?, .referenceList(let s)?), (.emptyList?, .referenceList(let l)?, .referenceList(let s)?):
            return .referenceList(merge(base: [], local: l, server: s, key: \.recordName))
        case (.stringList(let b)?, .stringList(let l)?, .stringList(let s)?):
            return .stringList(merge(base: b, local: l, server: s, key: \.self))
        case (.none, .stringList(let l)?, .stringList(let s)?), (.emptyList?, .stringList(let l)?, .stringList(let s)?):
            return .stringList(merge(base: [], local: l, server: s, key: \.self))
        default:
            return nil
        }
    }

    private static func merge<Element, Key: Hashable>(base: [Element], local: [Element], server: [Element], key: (Element) -> Key) -> [Element] {
        let baseKeys = Set(base.map(key))
        let localKeys = Set(local.map(key))
        let removedLocally = baseKeys.subtracting(localKeys)
        var seen: Set<Key> = []
        var result: [Element] = []
        for element in server + local.filter({ !baseKeys.contains(key($0)) }) {
            let id = key(element)
            guard !removedLocally.contains(id), seen.insert(id).inserted else { continue }
            result.append(element)
        }
        return result
    }
}
