import Synchronization

/// Credentials read recently — server-to-server keys with their parsed public keys, API-token
/// records — so a request skips the account-store read while nothing about credentials changed
/// (design note 0006, "Key records and the credential generation").
///
/// An entry is reused only while it is provably current:
///
/// - the store's ``AccountStore/credentialGeneration()`` is the one read **before** the entry
///   was loaded. Every change to a key or an API token — a revocation by `stratus key revoke` or
///   `stratus token revoke` in another process included — bumps it in the same transaction, so
///   the next request sees a new value and reads again. Reading the generation first means a
///   revocation that commits while the entry loads is either in the loaded row or bumps the
///   generation after it.
/// - or, for a store without a generation (PostgreSQL), for at most `lifetime` (zero: never).
///
/// Without a generation, revoking a key or token through ``AccountAdministration`` in this process
/// voids every entry of every cache at once (a process-wide revision); with one the revision is not
/// consulted, so only the store decides.
final class CredentialCache<Value: Sendable>: Sendable {
    private struct Entry {
        var value: Value
        var generation: Int64?
        var fetchedAt: Int64
        var revision: UInt64
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let lifetime: Int64
    private let maximumEntries = 1_000

    init(lifetime: Duration = .zero) {
        let (seconds, attoseconds) = lifetime.components
        self.lifetime = max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    /// The value under `key`: cached, or read with `load` and cached when it exists.
    ///
    /// - Parameters:
    ///   - generation: The store's credential generation, read just now (`nil` if it has none).
    ///   - now: The clock, in milliseconds.
    ///   - load: Reads the value; `nil` if there is none (not cached).
    func value(_ key: String, generation: Int64?, now: Int64, load: () async throws -> Value?) async rethrows -> Value? {
        let revision = CredentialRevision.current
        if let cached = entries.withLock({ $0[key] }), isCurrent(cached, generation: generation, now: now, revision: revision) {
            return cached.value
        }
        guard let value = try await load() else { return nil }
        guard generation != nil || lifetime > 0 else { return value }
        entries.withLock { table in
            if table.count >= maximumEntries, table[key] == nil { table.removeAll() }
            table[key] = Entry(value: value, generation: generation, fetchedAt: now, revision: revision)
        }
        return value
    }

    /// The value under `key` if a current entry holds it, without loading anything.
    ///
    /// - Parameters:
    ///   - generation: The store's credential generation (`nil` if it has none or it was not read).
    ///   - now: The clock, in milliseconds.
    func cachedValue(_ key: String, generation: Int64?, now: Int64) -> Value? {
        guard let cached = entries.withLock({ $0[key] }),
            isCurrent(cached, generation: generation, now: now, revision: CredentialRevision.current)
        else { return nil }
        return cached.value
    }

    private func isCurrent(_ entry: Entry, generation: Int64?, now: Int64, revision: UInt64) -> Bool {
        if let generation {
            // The generation moves with every revocation, this process's included.
            return entry.generation == generation
        }
        return lifetime > 0 && entry.revision == revision && now >= entry.fetchedAt && now - entry.fetchedAt < lifetime
    }
}

/// A process-wide revision every in-process revocation bumps, voiding every ``CredentialCache`` entry.
enum CredentialRevision {
    private static let revisions = Atomic<UInt64>(0)

    /// The current revision.
    static var current: UInt64 { revisions.load(ordering: .sequentiallyConsistent) }

    /// Voids every cached credential of every authenticator in this process.
    static func noteRevocation() {
        revisions.add(1, ordering: .sequentiallyConsistent)
    }
}
