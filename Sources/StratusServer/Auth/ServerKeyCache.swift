import StratusCrypto
import Synchronization

/// Server-to-server keys read recently, with their parsed public keys, so a signed request
/// skips the key read and the PEM parse while nothing about keys changed (design note 0006).
///
/// An entry is reused only while it is provably current:
///
/// - the store's ``AccountStore/credentialGeneration()`` is the one read **before** the entry
///   was loaded. Every change to a key — a revocation by `stratus key revoke` in another
///   process included — bumps it in the same transaction, so the next request sees a new value
///   and reads the key again. Reading the generation first means a revocation that commits
///   while the key is being loaded is either in the loaded row or bumps the generation after it.
/// - or, for a store without a generation (PostgreSQL), for at most
///   ``AuthenticationConfiguration/serverKeyCacheLifetime`` (zero by default: never).
///
/// Revoking a key through ``AccountAdministration`` in this process also voids every entry at once.
final class ServerKeyCache: Sendable {
    /// A key record and what a signed request needs from it.
    struct Key: Sendable {
        var record: ServerKeyRecord
        /// The parsed public key; `nil` for a revoked key (never verified against).
        var publicKey: P256PublicKey?
        /// The identity records written with the key carry.
        var userRecordName: String
    }

    private struct Entry {
        var key: Key
        var generation: Int64?
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

    /// Voids every cached key of every authenticator in this process.
    static func noteRevocation() {
        revisions.add(1, ordering: .sequentiallyConsistent)
    }

    /// The key `keyID`: cached, or read and parsed with `load` and cached when it exists.
    ///
    /// - Parameters:
    ///   - generation: The store's credential generation, read just now (`nil` if it has none).
    ///   - now: The clock, in milliseconds.
    ///   - load: Reads and parses the key; `nil` if there is no such key.
    func key(_ keyID: String, generation: Int64?, now: Int64, load: () async throws -> Key?) async rethrows -> Key? {
        let revision = Self.revisions.load(ordering: .sequentiallyConsistent)
        if let cached = entries.withLock({ $0[keyID] }), cached.revision == revision {
            if let generation, cached.generation == generation { return cached.key }
            if generation == nil, lifetime > 0, now >= cached.fetchedAt, now - cached.fetchedAt < lifetime { return cached.key }
        }
        guard let key = try await load() else { return nil }
        guard generation != nil || lifetime > 0 else { return key }
        entries.withLock { table in
            if table.count >= maximumEntries, table[keyID] == nil { table.removeAll() }
            table[keyID] = Entry(key: key, generation: generation, fetchedAt: now, revision: revision)
        }
        return key
    }
}
