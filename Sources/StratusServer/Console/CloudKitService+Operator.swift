public import StratusHTTP
import StratusLogging

/// Who an in-process operator request acts as (``CloudKitService/respond(operator:actingAs:to:)``).
///
/// The grant names its request: a task started inside the operator request (a push fan-out
/// drain, say) inherits the task-local, but no other request is ever admitted by it.
enum OperatorPrincipal {
    struct Grant: Sendable {
        let requestID: String
        let principal: Principal
    }

    /// Set only for the duration of one operator request.
    @TaskLocal static var current: Grant?

    /// The operator's principal if `request` is the operator request itself; `admit` returns it
    /// instead of checking credentials.
    static func principal(for request: HTTPRequest) -> Principal? {
        guard let grant = current, grant.requestID == request.requestID else { return nil }
        return grant.principal
    }
}

extension CloudKitService {
    /// Requests admitted per signed-in user and container environment by this node (the console's usage page).
    public var userRequestCounts: UserRequestCounts { admission.userRequestCounts }

    /// Answers a CloudKit database request for the server's operator — the web console — in
    /// process, through exactly the path an HTTP request takes (schema checks, change tags and
    /// conflicts, quotas, rate limits, push), with credentials replaced by the operator's word.
    ///
    /// The caller must already have established that an administrator makes the request: this
    /// skips API tokens and web auth tokens. In the public database the request acts as the
    /// developer (like a server-to-server key: it may change records others created); in a
    /// private or shared database it acts as the user `userRecordName`.
    ///
    /// ```swift
    /// import StratusHTTP
    ///
    /// let path = "/database/1/iCloud.com.example.Notes/development/public/records/query"
    /// var request = HTTPRequest(method: .post, path: path, body: Data(#"{"query":{"recordType":"Note"}}"#.utf8))
    /// request.parameters = ["container": "iCloud.com.example.Notes", "environment": "development", "database": "public", "operation": "records/query"]
    /// let response = await service.respond(operator: "ada@example.com", actingAs: nil, to: request)
    /// ```
    ///
    /// - Parameters:
    ///   - operatorName: Who operates (an administrator's address), for logs and per-client rate limits.
    ///   - userRecordName: The user whose private or shared database is addressed; ignored for the public one.
    ///   - request: A request with ``HTTPRequest/parameters`` `container`, `environment`, `database`
    ///     and `operation` set as the router would set them.
    /// - Returns: The response an HTTP client would get; errors are responses too.
    public func respond(operator operatorName: String, actingAs userRecordName: String?, to request: HTTPRequest) async -> HTTPResponse {
        let principal: Principal
        if request.parameters["database"] == "public" || userRecordName == nil {
            principal = .serverKey(keyID: "console:" + operatorName, userRecordName: userRecordName ?? configuration.openModeUserRecordName)
        } else {
            principal = .user(userRecordName: userRecordName ?? "", sessionID: "console", apiToken: "")
        }
        do {
            return try await OperatorPrincipal.$current.withValue(OperatorPrincipal.Grant(requestID: request.requestID, principal: principal)) {
                try await database.respond(request)
            }
        } catch let error as any HTTPResponseError {
            return error.response(requestID: request.requestID)
        } catch {
            logger.error("console request \(request.path) failed: \(String(describing: error))", metadata: ["request-id": request.requestID])
            return HTTPError.internalError.response(requestID: request.requestID)
        }
    }
}
