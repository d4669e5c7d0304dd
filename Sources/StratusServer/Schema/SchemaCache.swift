import StratusWire
import Synchronization

/// Schemas by container environment, loaded on first use and replaced by the schema
/// every successful `records/modify` transaction read (or grew).
///
/// Only decoding of untagged values and queries read the cache; writes read the
/// schema inside their transaction, so a stale cache can never let a clash
/// through. A schema changed by another process (`stratus schema import|deploy`)
/// reaches the cache with the next `records/modify` of that environment.
final class SchemaCache: Sendable {
    private let schemas = Mutex<[String: Schema]>([:])

    func schema(container: String, environment: Environment, load: () async throws -> Schema) async throws -> Schema {
        let key = Self.key(container, environment)
        if let cached = schemas.withLock({ $0[key] }) { return cached }
        let loaded = try await load()
        schemas.withLock { $0[key] = loaded }
        return loaded
    }

    func replace(_ schema: Schema, container: String, environment: Environment) {
        schemas.withLock { $0[Self.key(container, environment)] = schema }
    }

    private static func key(_ container: String, _ environment: Environment) -> String {
        container + "\u{0}" + environment.rawValue
    }
}
