import Foundation
import StratusHTTP
import StratusServer

/// Records, zones and subscriptions: CloudKit requests the pages build, answered by the CloudKit
/// service itself in process (``CloudKitService/respond(operator:actingAs:to:)``), so change tags,
/// conflicts, schema checks and quotas are the API's own.
extension Console {
    /// The CloudKit operations the console may send; the ones that change something are audited.
    static let readOperations: Set<String> = [
        "records/query", "records/lookup", "records/changes", "zones/list", "zones/lookup", "subscriptions/list", "subscriptions/lookup",
        "changes/database", "changes/zone",
    ]
    static let changeOperations: Set<String> = ["records/modify", "zones/modify", "subscriptions/modify"]

    func registerDatabase(on router: inout Router) {
        // Every database call is a POST (CloudKit's shape), so every one carries the anti-forgery token.
        change(&router, Self.basePath + "/api/database/{container}/{environment}/{database}/{operation...}") { [self] request, caller in
            try await forward(request, caller)
        }
    }

    private func forward(_ request: HTTPRequest, _ caller: ConsoleCaller) async throws -> HTTPResponse {
        let container = try request.parameter("container")
        let environment = try request.parameter("environment")
        let database = try request.parameter("database")
        let operation = try request.parameter("operation")
        let changes = Self.changeOperations.contains(operation)
        guard changes || Self.readOperations.contains(operation) else {
            throw HTTPError.badRequest(
                "the console does not send '\(operation)'; it sends \((Self.readOperations.union(Self.changeOperations)).sorted().joined(separator: ", "))")
        }
        let user = try await actingUser(request.query["user"], database: database)
        var inner = HTTPRequest(
            method: .post, path: "/database/1/\(container)/\(environment)/\(database)/\(operation)",
            headers: ["Content-Type": "application/json"], body: request.body, requestID: request.requestID, receivedAt: request.receivedAt
        )
        inner.parameters = ["container": container, "environment": environment, "database": database, "operation": operation]
        inner.remoteAddress = request.remoteAddress
        inner.localAddress = request.localAddress
        inner.scheme = request.scheme
        guard changes else { return await service.respond(operator: caller.administrator.emailAddress, actingAs: user, to: inner) }
        let target = "\(container)/\(environment)/\(database)" + (user.map { " of \($0)" } ?? "")
        return try await auditLog.change(caller, operation, target: target, detail: Self.summary(of: request.body, answer: Data())) {
            let response = await service.respond(operator: caller.administrator.emailAddress, actingAs: user, to: inner)
            let summary = Self.summary(of: request.body, answer: response.body)
            let conclusion =
                response.status == .ok
                ? ConsoleAuditLog.Conclusion(target: target, detail: summary)
                : ConsoleAuditLog.Conclusion(target: target, detail: "\(summary) — HTTP \(response.status.code)", outcome: .failed)
            return (response, conclusion)
        }
    }

    /// The user whose private or shared database is addressed: named by e-mail address or user
    /// record name in `?user=`; required there when the server keeps accounts.
    private func actingUser(_ named: String?, database: String) async throws -> String? {
        guard database != "public" else { return nil }
        guard let administration else { return nil }  // open mode: the one user
        guard let named, !named.isEmpty else {
            throw HTTPError.badRequest("the \(database) database belongs to a user: name one with ?user=<e-mail or user record name>")
        }
        do {
            return try await administration.user(matching: named).userRecordName
        } catch let error as AccountError where error.code == .notFound {
            throw HTTPError(status: .notFound, serverErrorCode: "NOT_FOUND", reason: error.message)
        }
    }

    /// What a change request did, for the audit log: each operation's type and record, zone or
    /// subscription, with the error code of any that failed (a batch answers 200 with per-item errors).
    static func summary(of body: Data, answer: Data) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return "" }
        let operations = (object["operations"] as? [[String: Any]]) ?? []
        let results =
            ((try? JSONSerialization.jsonObject(with: answer)) as? [String: Any]).map { answer in
                ((answer["records"] ?? answer["zones"] ?? answer["subscriptions"]) as? [[String: Any]]) ?? []
            } ?? []
        let items = operations.prefix(20).enumerated().map { index, operation -> String in
            let type = operation["operationType"] as? String ?? "?"
            let record = operation["record"] as? [String: Any]
            let zone = (operation["zone"] as? [String: Any])?["zoneID"] as? [String: Any]
            let subscription = operation["subscription"] as? [String: Any]
            let name =
                (record?["recordName"] as? String) ?? (zone?["zoneName"] as? String) ?? (subscription?["subscriptionID"] as? String) ?? "?"
            let failure = index < results.count ? results[index]["serverErrorCode"] as? String : nil
            return "\(type) \(name)" + (failure.map { " (\($0), not done)" } ?? "")
        }
        return items.joined(separator: ", ") + (operations.count > 20 ? ", … (\(operations.count) in all)" : "")
    }
}
