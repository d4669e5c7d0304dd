import StratusHTTP
import StratusWire

/// The route of every CloudKit database operation,
/// `/database/1/{container}/{environment}/{database}/{operation...}`: each request is admitted
/// (``RequestAdmission``), checked against the database scope rules, and answered by the handler
/// an endpoint group registered for its operation (``DatabaseOperations``).
struct DatabaseEndpoint: Sendable {
    /// The URL template of every database operation.
    static let template = "/database/1/{container}/{environment}/{database}/{operation...}"

    let admission: RequestAdmission
    let operations: DatabaseOperations
    /// Signs download URLs for the assets of records in responses; `nil` while assets are off.
    let assetLinks: AssetLinks.Signer?

    /// Adds the route (GET and POST), with the credential check of its request heads.
    func register(on router: inout Router) {
        for method in [HTTPMethod.get, .post] {
            router.route(method, Self.template, check: { [admission] head in try admission.screenCredentials(head) }) { [self] request in
                try await respond(request)
            }
        }
    }

    /// Answers a database request, putting the caller's refreshed web auth token on the response, errors included.
    func respond(_ request: HTTPRequest) async throws -> HTTPResponse {
        let refresh = RefreshedToken()
        do {
            var response = try await RefreshedToken.$current.withValue(refresh) { try await handle(request) }
            refresh.attach(to: &response)
            return response
        } catch let error as any HTTPResponseError {
            var response = error.response(requestID: request.requestID)
            refresh.attach(to: &response)
            return response
        }
    }

    /// Answers one database request.
    private func handle(_ request: HTTPRequest) async throws -> HTTPResponse {
        var context = try await admission.resolve(request)
        try Self.checkScope(context.operation, context.database.scope, sharedOperations: operations.sharedOperations)
        context.assetLinks = assetLinks?.links(for: request)
        guard let handler = operations.handler(for: context.operation, in: context.database.scope) else {
            throw HTTPError.endpointNotFound
        }
        return try await handler(context)
    }

    /// Apple's CloudKit Web Services Reference: “Database scope rules”: what each database scope allows.
    static func checkScope(
        _ operation: EndpointOperation, _ scope: DatabaseScope, sharedOperations: Set<EndpointOperation>
    ) throws(ServiceError) {
        switch (operation, scope) {
        case (.recordsChanges, .public), (.changesZone, .public), (.changesDatabase, .public), (.zonesChanges, .public):
            throw .badRequest("change feeds are not available in the public database")
        case (.zonesModify, .public):
            throw .badRequest("the public database has only the default zone; zones cannot be created or deleted there")
        case (_, .shared) where !sharedOperations.contains(operation) && operation.requiredDatabase == nil:
            throw .badRequest("\(operation.rawValue) is not available in the shared database")
        default:
            return
        }
    }
}
