import Synchronization

/// Server-to-server key records read recently, so a signed request does not wait for the
/// account store each time (design note 0008, "Authentication cost").
///
/// An entry is used for at most ``AuthenticationConfiguration/serverKeyCacheLifetime``.
/// Revoking a key through ``AccountAdministration`` in this process bumps a process-wide
/// revision that voids every entry at once, so such a revocation takes effect on the next
/// request; one made by another process (`stratus key revoke` against a running server's
/// data) takes effect within the lifetime.
final class ServerKeyCache: Sendable {
    private struct Entry {
        var record: ServerKeyRecord
        var fetchedAt: Int64
        var revision: UInt64
    }

    /// Bumped by every key revocation in this process.
    private static let revisions = Atomic<UInt64>(0)

    private let entries = Mutex<[String: Entry]>([:])
    private let lifetime: Int64
    private let maximumEntries = 1_000

    init(lifetime: Duration) {
        let (seconds, attoseconds) = lifetime.components
        self.lifetime = max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    /// Voids every cached key record of every authenticator in this process.
    static func noteRevocation() {
        revisions.add(1, ordering: .sequentiallyConsistent)
    }

    /// The key record of `keyID`: cached, or read with `load` and cached when it exists.
    func record(_ keyID: String, now: Int64, load: () async throws -> ServerKeyRecord?) async rethrows -> ServerKeyRecord? {
        guard lifetime > 0 else { return try await load() }
        let revision = Self.revisions.load(ordering: .sequentiallyConsistent)
        let cached = entries.withLock { $0[keyID] }
        if let cached, cached.revision == revision, now >= cached.fetchedAt, now - cached.fetchedAt < lifetime {
            return cached.record
        }
        guard let record = try await load() else { return nil }
        entries.withLock { table in
            if table.count >= maximumEntries, table[keyID] == nil { table.removeAll() }
            table[keyID] = Entry(record: record, fetchedAt: now, revision: revision)
        }
        return record
    }
}
