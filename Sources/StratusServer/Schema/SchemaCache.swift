import StratusWire
import Synchronization

/// Schemas by container environment, loaded on first use and replaced by the schema
/// every successful `records/modify` transaction read (or grew).
///
/// Only decoding of untagged values and queries read the cache; writes read the
/// schema inside their transaction, so a stale cache can never let a clash
/// through. A schema changed by another process (`stratus schema import|deploy`)
/// reaches the cache with the next `records/modify` of that environment.
///
/// Writers take a ticket inside their transaction, where this process's writes
/// are serialized, so tickets follow commit order; a replacement with an older
/// ticket than the cached one is dropped, and a slow response can never put an
/// older schema back.
final class SchemaCache: Sendable {
    private struct State {
        var entries: [String: (schema: Schema, ticket: UInt64)] = [:]
        var lastTicket: UInt64 = 0
    }

    private let state = Mutex(State())

    func schema(container: String, environment: Environment, load: () async throws -> Schema) async throws -> Schema {
        let key = Self.key(container, environment)
        if let cached = state.withLock({ $0.entries[key]?.schema }) { return cached }
        let loaded = try await load()
        return state.withLock { state in
            if let raced = state.entries[key] { return raced.schema }  // a writer got there first, with a newer one
            state.entries[key] = (loaded, 0)
            return loaded
        }
    }

    /// A ticket ordering a replacement; take it inside the write transaction.
    func ticket() -> UInt64 {
        state.withLock { state in
            state.lastTicket += 1
            return state.lastTicket
        }
    }

    /// Caches `schema` unless a replacement with a later ticket came first.
    func replace(_ schema: Schema, container: String, environment: Environment, ticket: UInt64) {
        let key = Self.key(container, environment)
        state.withLock { state in
            if let current = state.entries[key], current.ticket > ticket { return }
            state.entries[key] = (schema, ticket)
        }
    }

    private static func key(_ container: String, _ environment: Environment) -> String {
        container + "\u{0}" + environment.rawValue
    }
}

extension SchemaCache {
    /// The schema of the request's container environment, for decoding untagged values.
    func schema(for context: DatabaseRequest, in store: any RecordStore) async throws -> Schema {
        try await schema(container: context.container, environment: context.environment) {
            try await store.read { try $0.schema(container: context.container, environment: context.environment) }
        }
    }
}
