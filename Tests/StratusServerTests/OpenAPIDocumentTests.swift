import Foundation
import StratusHTTP
import StratusMetrics
@testable import StratusServer
import StratusTesting
import StratusWire
import Testing

/// The OpenAPI description (`GET /openapi.json`) against the router of `stratus serve`.
@Suite struct OpenAPIDocumentTests {
    /// `METHOD /path` of every operation the router answers, a `{operation...}` template expanded
    /// to the CloudKit operations of its module and their accepted methods, a final `{name...}`
    /// written `{name}` as OpenAPI spells a parameter.
    static func routerOperations(_ router: Router) -> Set<String> {
        var operations: Set<String> = []
        for route in router.registeredRoutes {
            if route.template.hasSuffix("/{operation...}") {
                let prefix = route.template.dropLast("{operation...}".count)
                let module: EndpointOperation.Module = route.template.hasPrefix("/device/") ? .device : .database
                for operation in EndpointOperation.allCases where operation.module == module {
                    if operation.acceptedMethods.contains(where: { $0.rawValue == route.method.rawValue }) {
                        operations.insert("\(route.method.rawValue) \(prefix)\(operation.rawValue)")
                    }
                }
            } else {
                operations.insert("\(route.method.rawValue) \(route.template.replacingOccurrences(of: "...}", with: "}"))")
            }
        }
        return operations
    }

    /// `METHOD /path` of every operation the document describes.
    static func documentedOperations() throws -> Set<String> {
        let document = try JSONValue(parsing: OpenAPIDocument.json)
        guard case .object(let paths)? = document["paths"] else { throw QueryTestFailure(description: "the document has no paths") }
        var operations: Set<String> = []
        for (path, item) in paths {
            guard case .object(let methods) = item else { continue }
            for method in methods.keys { operations.insert("\(method.uppercased()) \(path)") }
        }
        return operations
    }

    /// The operations a server in a mode answers.
    static func served(authenticated: Bool) async throws -> Set<String> {
        var served: Set<String> = []
        try await TestCloudKitServer.withStarted(backend: .sqlite, authenticated: authenticated) { server in
            var router = Router()
            OperationalRoutes.register(
                on: &router, metrics: MetricsRegistry(), metricsAccess: MetricsAccess(), readiness: ReadinessCheck(store: server.store))
            server.service.register(on: &router)
            served = Self.routerOperations(router)
        }
        return served
    }

    /// No route of `stratus serve` is missing from the description, and it describes none the
    /// server does not answer: with accounts (every route), and in open mode (no sign-in pages).
    @Test func describesExactlyTheRoutesOfTheServer() async throws {
        let documented = try Self.documentedOperations()
        let withAccounts = try await Self.served(authenticated: true)
        #expect(withAccounts.subtracting(documented).sorted() == [], "routes the description lacks")
        #expect(documented.subtracting(withAccounts).sorted() == [], "described operations no route answers")
        #expect(withAccounts.contains("GET /openapi.json") && withAccounts.contains("POST /signin"))
        #expect(withAccounts.count > 30)
        let open = try await Self.served(authenticated: false)
        #expect(open.subtracting(documented).sorted() == [], "routes of open mode the description lacks")
        #expect(documented.subtracting(open) == ["GET /signin", "POST /signin", "POST /signout", "POST /signup", "GET /verify", "POST /verify"])
    }

    /// The document is OpenAPI 3.1 and every operation has an ID, responses and a CloudKit error default.
    @Test func everyOperationIsDescribed() throws {
        let document = try JSONValue(parsing: OpenAPIDocument.json)
        #expect(document["openapi"] == "3.1.0")
        guard case .object(let paths)? = document["paths"] else { throw QueryTestFailure(description: "no paths") }
        var ids: Set<String> = []
        for (path, item) in paths {
            guard case .object(let methods) = item else { continue }
            for (method, operation) in methods {
                let id = try #require(operation["operationId"]?.stringValue, "\(method) \(path)")
                #expect(ids.insert(id).inserted, "operation ID '\(id)' is used twice")
                #expect(operation["responses"]?["default"] != nil, "\(method) \(path) has no default response")
            }
        }
    }
}
