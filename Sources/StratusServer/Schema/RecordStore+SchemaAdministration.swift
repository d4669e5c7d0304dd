public import StratusWire

/// `stratus schema export|import|deploy` on any back end, each in one transaction.
///
/// Import and deploy follow ``SchemaDeployment/plan(from:to:environment:)``: they may
/// add record types and fields and flip index flags, never remove or retype.
///
/// A running server checks every write against the schema stored in the write's
/// own transaction, so a change made here (even by another process) is enforced
/// at once. The server also caches schemas to interpret untagged field values and
/// to answer queries; that cache is refreshed by the next `records/modify` of the
/// container environment, or by a restart. Run these commands with the server
/// stopped for an immediate, uniform switch.
///
/// ```swift
/// let plan = try await store.deploySchema(container: "iCloud.com.example.Notes")
/// plan.changes.forEach { print($0) }
/// ```
extension RecordStore {
    /// The schema of a container environment.
    ///
    /// - Parameters:
    ///   - container: The container identifier.
    ///   - environment: The environment.
    /// - Returns: The stored schema (empty if nothing was saved yet).
    /// - Throws: ``SchemaError`` `containerNotFound`, or the store's error.
    public func exportSchema(container: String, environment: Environment) async throws -> Schema {
        try await read { tx in
            try Self.checkContainer(container, tx)
            return try tx.schema(container: container, environment: environment)
        }
    }

    /// Replaces a container environment's schema by `schema`, if that only adds.
    ///
    /// - Parameters:
    ///   - schema: The new schema, as ``SchemaDeployment/decode(_:)`` reads it from a file.
    ///   - container: The container identifier.
    ///   - environment: The environment whose schema is replaced.
    /// - Returns: The plan that was applied; nothing is written when it is empty.
    /// - Throws: ``SchemaError`` `invalidSchema`, `incompatibleChange` (nothing is written)
    ///   or `containerNotFound`, or the store's error.
    public func importSchema(_ schema: Schema, container: String, environment: Environment) async throws -> SchemaPlan {
        try SchemaDeployment.validate(schema)
        return try await write { tx in
            try Self.checkContainer(container, tx)
            let current = try tx.schema(container: container, environment: environment)
            let plan = try SchemaDeployment.plan(from: current, to: schema, environment: environment)
            if !plan.isEmpty { try tx.saveSchema(plan.schema, container: container, environment: environment) }
            return plan
        }
    }

    /// Copies the development schema to production, if that only adds to production.
    ///
    /// - Parameter container: The container identifier.
    /// - Returns: The plan that was applied to production; nothing is written when it is empty.
    /// - Throws: ``SchemaError`` `incompatibleChange` naming what production has and development
    ///   lacks or types differently (nothing is written), `containerNotFound`, or the store's error.
    public func deploySchema(container: String) async throws -> SchemaPlan {
        try await write { tx in
            try Self.checkContainer(container, tx)
            let development = try tx.schema(container: container, environment: .development)
            try SchemaDeployment.validate(development)
            let production = try tx.schema(container: container, environment: .production)
            let plan = try SchemaDeployment.plan(from: production, to: development, environment: .production)
            if !plan.isEmpty { try tx.saveSchema(plan.schema, container: container, environment: .production) }
            return plan
        }
    }

    private static func checkContainer(_ container: String, _ tx: any RecordStoreReader) throws {
        guard try tx.containerExists(container) else {
            throw SchemaError(
                .containerNotFound, "container '\(container)' does not exist; create it with `stratus container create \(container)`"
            )
        }
    }
}
