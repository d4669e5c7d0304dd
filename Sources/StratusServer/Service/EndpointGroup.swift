import StratusHTTP
import StratusWire

/// One group of the CloudKit service's endpoints — records, zones, changes, subscriptions, push,
/// assets, sharing, users, sign-in — in the manner of a route collection: a type that holds only
/// what its endpoints need, passed in when it is made, and adds its own routes
/// (Documentation/0021-endpoint-groups.md).
///
/// A group hands its CloudKit database operations
/// (`/database/1/{container}/{environment}/{database}/{operation}`) to ``DatabaseOperations``, once,
/// when the service is made — ``DatabaseEndpoint`` answers the one route of those operations, admits
/// each request (``RequestAdmission``) and hands it to the group's handler — and registers its plain
/// routes on the router, once, when the service is served. Each has a default that adds nothing.
protocol EndpointGroup: Sendable {
    /// Adds the group's database operations.
    func register(on operations: inout DatabaseOperations)
    /// Adds the group's routes that are not database operations.
    func register(on router: inout Router)
}

extension EndpointGroup {
    func register(on operations: inout DatabaseOperations) {}
    func register(on router: inout Router) {}
}

/// The handlers of the database operations, by operation, and in the shared database by
/// operation too (the shared database answers a few operations its own way).
struct DatabaseOperations: Sendable {
    /// Answers one admitted database request.
    typealias Handler = @Sendable (DatabaseRequest) async throws -> HTTPResponse

    private var handlers: [EndpointOperation: Handler] = [:]
    private var sharedHandlers: [EndpointOperation: Handler] = [:]

    /// Answers `operations` with `handler` in every database (unless the shared database has its own).
    mutating func on(_ operations: EndpointOperation..., handler: @escaping Handler) {
        for operation in operations {
            precondition(handlers[operation] == nil, "two endpoint groups answer \(operation.rawValue)")
            handlers[operation] = handler
        }
    }

    /// Answers `operations` with `handler` in the shared database.
    mutating func onShared(_ operations: EndpointOperation..., handler: @escaping Handler) {
        for operation in operations {
            precondition(sharedHandlers[operation] == nil, "two endpoint groups answer \(operation.rawValue) in the shared database")
            sharedHandlers[operation] = handler
        }
    }

    /// The operations the shared database answers its own way.
    var sharedOperations: Set<EndpointOperation> { Set(sharedHandlers.keys) }

    /// The handler of `operation` in a database of `scope`; `nil` for an operation nobody answers.
    func handler(for operation: EndpointOperation, in scope: DatabaseScope) -> Handler? {
        if scope == .shared, let shared = sharedHandlers[operation] { return shared }
        return handlers[operation]
    }
}
