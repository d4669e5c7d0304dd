import Foundation
import StratusHTTP
import StratusServer
import StratusWire

/// Schemas: view either environment, replace the development one (additions only, as
/// `stratus schema import`), preview and deploy to production (as `stratus schema deploy`).
extension Console {
    struct PlanAnswer: Encodable {
        var changes: [String]
        var deployed: Bool
    }

    func registerSchema(on router: inout Router) {
        read(&router, Self.basePath + "/api/schema/{container}/{environment}") { [self] request, _ in
            let (container, environment) = try await schemaTarget(request)
            if environment == nil {  // the preview: what a deploy would add to production
                let development = try await records.exportSchema(container: container, environment: .development)
                let production = try await records.exportSchema(container: container, environment: .production)
                let plan = try SchemaDeployment.plan(from: production, to: development, environment: .production)
                return try .json(PlanAnswer(changes: plan.changes.map(\.description), deployed: false))
            }
            let schema = try await records.exportSchema(container: container, environment: environment ?? .development)
            return .json(bytes: try SchemaDeployment.encode(schema))
        }
        change(&router, Self.basePath + "/api/schema/{container}/development", maximumBodySize: 4 << 20) { [self] request, caller in
            let container = try request.parameter("container")
            try await requireContainer(container)
            let plan = try await records.importSchema(try SchemaDeployment.decode(request.body), container: container, environment: .development)
            if !plan.changes.isEmpty {
                try await audit(caller, "schema.edit", target: "\(container)/development", detail: plan.changes.map(\.description).joined(separator: "; "))
            }
            return try .json(PlanAnswer(changes: plan.changes.map(\.description), deployed: false))
        }
        change(&router, Self.basePath + "/api/schema/{container}/deploy") { [self] request, caller in
            let container = try request.parameter("container")
            try await requireContainer(container)
            let plan = try await records.deploySchema(container: container)
            try await audit(caller, "schema.deploy", target: "\(container)/production", detail: plan.changes.map(\.description).joined(separator: "; "))
            return try .json(PlanAnswer(changes: plan.changes.map(\.description), deployed: true))
        }
    }

    /// The container and environment of a schema read; `nil` environment for `preview`.
    private func schemaTarget(_ request: HTTPRequest) async throws -> (String, Environment?) {
        let container = try request.parameter("container")
        let name = try request.parameter("environment")
        try await requireContainer(container)
        if name == "preview" { return (container, nil) }
        guard let environment = Environment(rawValue: name) else {
            throw HTTPError.badRequest("unknown environment '\(name)'; use 'development', 'production' or 'preview'")
        }
        return (container, environment)
    }
}
