import Foundation

/// A note's synced values, with its folder by name. Titles are unique and never edited: they name notes.
struct NoteValues: Hashable, Sendable, CustomStringConvertible {
    var body: String?
    var rank: Int?
    var folder: String?

    /// One field of a note, as the model edits it.
    enum Field: CaseIterable, Sendable {
        case body, rank, folder
    }

    /// Takes `field`'s value from `other`.
    mutating func take(_ field: Field, from other: NoteValues) {
        switch field {
        case .body: body = other.body
        case .rank: rank = other.rank
        case .folder: folder = other.folder
        }
    }

    var description: String { "\(body ?? "-")/\(rank.map(String.init) ?? "-")/\(folder ?? "-")" }
}

/// A note as the server holds it: values, change tag, modification date.
struct ServerNote: Hashable, Sendable {
    var values: NoteValues
    var tag: String?
    var modified: Date?
}

/// What a device changed in a note since its last sync, oldest first folded into one.
enum PendingChange: Sendable {
    /// Made on the device: every value.
    case create(NoteValues, at: Date)
    /// Fields changed, with the time of the latest edit.
    case edit([NoteValues.Field: NoteValues], at: Date)
    /// Deleted on the device.
    case delete
}

/// The conflict policies the property test drives, as the spec (Documentation/0009, decision 8) states
/// them — written again here, independently of `ConflictResolver`, as the oracle.
enum ModelPolicy: Sendable, CustomStringConvertible {
    case threeWayMerge, latestChangeWins

    var description: String { self == .threeWayMerge ? "three-way merge" : "latest change wins" }

    /// The values an upload of `local` (on `base`, edited at `editedAt`) leaves on the server, which
    /// holds `server` (written at `serverModified`).
    func resolve(base: NoteValues, local: NoteValues, server: NoteValues, editedAt: Date, serverModified: Date?) -> NoteValues {
        let localIsLater = serverModified.map { editedAt > $0 } ?? true
        switch self {
        case .latestChangeWins:
            return localIsLater ? local : server
        case .threeWayMerge:
            func pick<Value: Equatable>(_ base: Value, _ local: Value, _ server: Value) -> Value {
                if local == server { return local }
                if local == base { return server }
                if server == base { return local }
                return localIsLater ? local : server
            }
            return NoteValues(
                body: pick(base.body, local.body, server.body), rank: pick(base.rank, local.rank, server.rank),
                folder: pick(base.folder, local.folder, server.folder))
        }
    }
}

/// What one device has done that the server may not know, and the server state it last synced.
struct DeviceModel: Sendable {
    /// The server's notes as of this device's last completed sync, by title.
    var base: [String: ServerNote] = [:]
    /// Local changes not known to be on the server, by title.
    var pending: [String: PendingChange] = [:]

    /// Records a local edit of some fields of `title`, whose values are now `values`.
    mutating func edited(_ title: String, fields: Set<NoteValues.Field>, to values: NoteValues, at date: Date) {
        switch pending[title] {
        case .create?:
            pending[title] = .create(values, at: date)
        case .edit(let known, _)?:
            var merged = known
            for field in fields { merged[field] = values }
            pending[title] = .edit(merged, at: max(date, latest(of: title) ?? date))
        case .delete?:
            return
        case nil:
            pending[title] = .edit(Dictionary(uniqueKeysWithValues: fields.map { ($0, values) }), at: date)
        }
    }

    private func latest(of title: String) -> Date? {
        if case .edit(_, let date)? = pending[title] { date } else { nil }
    }

    mutating func deleted(_ title: String) {
        if case .create? = pending[title] {
            pending[title] = nil
        } else {
            pending[title] = .delete
        }
    }

    /// The server after this device uploads what it has pending onto `server`, under `policy`.
    func upload(onto server: [String: ServerNote], policy: ModelPolicy) -> [String: NoteValues] {
        var result = server.mapValues(\.values)
        for (title, change) in pending {
            switch change {
            case .create(let values, _):
                result[title] = values
            case .delete:
                result[title] = nil
            case .edit(let fields, let date):
                guard let current = server[title] else { continue }  // deleted elsewhere: the deletion wins
                let held = base[title]?.values ?? current.values
                var local = held
                for (field, values) in fields { local.take(field, from: values) }
                if local == held { continue }  // nothing differs from the last-synced version: nothing is sent
                if base[title]?.tag == current.tag {
                    result[title] = local
                } else {
                    result[title] = policy.resolve(
                        base: held, local: local, server: current.values, editedAt: date, serverModified: current.modified)
                }
            }
        }
        return result
    }
}
