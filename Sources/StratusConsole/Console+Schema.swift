import Foundation
import StratusHTTP
import StratusServer
import StratusWire

/// Schemas: view either environment, replace the development one (additions only, as
/// `stratus schema import`), preview and deploy to production (as `stratus schema deploy`);
/// reset the development environment (``DevelopmentReset``).
extension Console {
    struct PlanAnswer: Encodable {
        var changes: [String]
        var deployed: Bool
    }

    /// The typed confirmation of a reset: the container's identifier, typed again.
    struct ResetConfirmation: Decodable {
        var confirm: String
    }

    func registerSchema(on router: inout Router) {
        // Literal paths only: a literal segment wins over `{environment}` in the router, so the POSTs
        // below would otherwise hide these GETs.
        for environment in [Environment.development, .production] {
            read(&router, Self.basePath + "/api/schema/{container}/\(environment.rawValue)") { [self] request, _ in
                let container = try request.parameter("container")
                try await requireContainer(container)
                return .json(bytes: try SchemaDeployment.encode(try await records.exportSchema(container: container, environment: environment)))
            }
        }
        read(&router, Self.basePath + "/api/schema/{container}/preview") { [self] request, _ in
            let container = try request.parameter("container")
            try await requireContainer(container)
            let development = try await records.exportSchema(container: container, environment: .development)
            let production = try await records.exportSchema(container: container, environment: .production)
            let plan = try SchemaDeployment.plan(from: production, to: development, environment: .production)
            return try .json(PlanAnswer(changes: plan.changes.map(\.description), deployed: false))
        }
        change(&router, Self.basePath + "/api/schema/{container}/development", maximumBodySize: 4 << 20) { [self] request, caller in
            let container = try request.parameter("container")
            try await requireContainer(container)
            let schema = try SchemaDeployment.decode(request.body)
            let target = "\(container)/development"
            let plan = try await auditLog.change(caller, "schema.edit", target: target) {
                let plan = try await records.importSchema(schema, container: container, environment: .development)
                let changes = plan.changes.map(\.description).joined(separator: "; ")
                return (plan, ConsoleAuditLog.Conclusion(target: target, detail: changes.isEmpty ? "no change" : changes))
            }
            return try .json(PlanAnswer(changes: plan.changes.map(\.description), deployed: false))
        }
        change(&router, Self.basePath + "/api/schema/{container}/deploy") { [self] request, caller in
            let container = try request.parameter("container")
            try await requireContainer(container)
            let plan = try await auditLog.change(caller, "schema.deploy", target: "\(container)/production") {
                let plan = try await records.deploySchema(container: container)
                return (plan, ConsoleAuditLog.Conclusion(target: "\(container)/production", detail: plan.changes.map(\.description).joined(separator: "; ")))
            }
            return try .json(PlanAnswer(changes: plan.changes.map(\.description), deployed: true))
        }
        registerReset(on: &router)
    }

    /// `POST /console/api/environments/{container}/development/reset` with `{"confirm": container}`:
    /// the development environment emptied, in one transaction; there is no such route for production.
    private func registerReset(on router: inout Router) {
        change(&router, Self.basePath + "/api/environments/{container}/development/reset") { [self] request, caller in
            let container = try request.parameter("container")
            let body = try Self.decode(ResetConfirmation.self, from: request)
            guard body.confirm == container else {
                throw HTTPError.badRequest("to reset the development environment of '\(container)', type the container's identifier in \"confirm\"")
            }
            let now = configuration.now()
            let target = "\(container)/development"
            let summary = try await auditLog.change(caller, "environment.reset", target: target) {
                let summary = try await records.write { tx in try DevelopmentReset.reset(container: container, now: now, in: tx) }
                let detail =
                    "\(summary.zones) zone(s) in \(summary.databases) database(s), \(summary.subscriptions) subscription(s), \(summary.recordTypes) record type(s)"
                return (summary, ConsoleAuditLog.Conclusion(target: target, detail: detail))
            }
            return try .json(summary)
        }
    }
}
