public import Foundation
public import StratusWire

/// The OpenAPI 3.1 description of every endpoint `stratus serve` answers, served at
/// `GET /openapi.json` (``OperationalRoutes``).
///
/// Built from the same lists the router is: one path per CloudKit operation
/// (``EndpointOperation``, with its accepted methods and the database it may address), the
/// device, courier, asset, sign-in, health, metrics and description routes. A test checks it
/// against the router of `stratus serve` (no route missing, none extra) and Schemathesis runs
/// against it in `make test` (Documentation/0016).
///
/// ```swift
/// let bytes = OpenAPIDocument.json    // what GET /openapi.json answers
/// ```
public enum OpenAPIDocument {
    /// The document as a JSON value.
    public static let document: JSONValue = .object([
        "openapi": "3.1.0",
        "info": .object([
            "title": "Stratus",
            "version": "1",
            "description": "CloudKit Web Services, the web courier, sign-in, assets, health and metrics of a Stratus server.",
        ]),
        "paths": .object(paths()),
        "components": .object(["schemas": .object(["CloudKitError": errorSchema])]),
    ])

    /// The document's bytes (compact, keys sorted), as served.
    public static let json: Data = (try? document.serialized()) ?? Data("{}".utf8)

    /// Every path of the document with its operations.
    static func paths() -> [String: JSONValue] {
        var paths: [String: JSONValue] = [:]
        for operation in EndpointOperation.allCases {
            var methods: [String: JSONValue] = [:]
            for method in operation.acceptedMethods {
                methods[method.rawValue.lowercased()] = cloudKitOperation(operation, method: method)
            }
            paths[path(of: operation)] = .object(methods)
        }
        for (path, methods) in otherRoutes {
            paths[path] = .object(methods)
        }
        return paths
    }

    /// The document's path of a CloudKit operation.
    static func path(of operation: EndpointOperation) -> String {
        switch operation.module {
        case .database: "/database/1/{container}/{environment}/{database}/\(operation.rawValue)"
        case .device: "/device/1/{container}/{environment}/\(operation.rawValue)"
        }
    }

    private static func cloudKitOperation(_ operation: EndpointOperation, method: EndpointOperation.HTTPMethod) -> JSONValue {
        var parameters: [JSONValue] = [
            pathParameter("container", "The container identifier, such as iCloud.com.example.Notes."),
            pathParameter("environment", "The schema environment.", values: ["development", "production"]),
        ]
        if operation.module == .database {
            let databases = operation.requiredDatabase.map { [$0.rawValue] } ?? ["private", "shared", "public"]
            parameters.append(pathParameter("database", "The database.", values: databases))
        }
        parameters += [
            queryParameter("ckAPIToken", "An API token of the container."),
            queryParameter("ckWebAuthToken", "A signed-in user's web auth token."),
        ]
        var described: [String: JSONValue] = [
            "operationId": .string("\(method.rawValue.lowercased()) \(operation.rawValue)"),
            "summary": .string("CloudKit Web Services \(operation.rawValue)"),
            "tags": ["CloudKit Web Services"],
            "parameters": .array(parameters),
            "responses": responses(
                success: "The operation's response body.", successType: "application/json", successSchema: .object(["type": "object"])),
        ]
        if method == .post {
            described["requestBody"] = .object([
                "required": .bool(true),
                "content": .object(["application/json": .object(["schema": requestSchema(for: operation)])]),
            ])
        }
        return .object(described)
    }

    /// The routes besides the CloudKit operations: path → method → operation.
    static let otherRoutes: [String: [String: JSONValue]] = [
        "/courier/{token}": [
            "get": plain(
                "courier", "The web courier: a long-poll that answers with the next push notifications of a token.",
                tags: "Push", parameters: [pathParameter("token", "A push token from tokens/create.")], success: "application/json")
        ],
        "/assets/upload/{ticket}": [
            "post": plain(
                "assets upload", "Uploads the bytes of an asset to a ticket from assets/upload.",
                tags: "Assets", parameters: [pathParameter("ticket", "An upload ticket.")], success: "application/json",
                body: "application/octet-stream")
        ],
        "/assets/download/{ticket}/{file}": [
            "get": plain(
                "assets download", "Downloads an asset's bytes with a signed ticket.",
                tags: "Assets", parameters: [pathParameter("ticket", "A download ticket."), pathParameter("file", "The file name.")],
                success: "application/octet-stream")
        ],
        // The sign-in routes exist only when the server requires authentication (not in open mode).
        "/signin": [
            "get": plain("signin page", "The sign-in page.", tags: "Sign-in", success: "text/html"),
            "post": plain(
                "signin", "Signs in with e-mail and password.", tags: "Sign-in", success: "text/html",
                body: "application/x-www-form-urlencoded"),
        ],
        "/signout": [
            "post": plain(
                "signout", "Ends a web session.", tags: "Sign-in", success: "text/html", body: "application/x-www-form-urlencoded")
        ],
        "/signup": [
            "post": plain(
                "signup", "Asks for an account; sends a verification link.", tags: "Sign-in", success: "text/html",
                body: "application/x-www-form-urlencoded")
        ],
        "/verify": [
            "get": plain("verify page", "The page a verification link opens.", tags: "Sign-in", success: "text/html"),
            "post": plain(
                "verify", "Completes a sign-up.", tags: "Sign-in", success: "text/html", body: "application/x-www-form-urlencoded"),
        ],
        "/health": ["get": plain("health", "Whether the server is up.", tags: "Operations", success: "application/json")],
        "/ready": [
            "get": plain(
                "ready", "Whether the store answers a read within 2 s (503 naming the failure otherwise).", tags: "Operations",
                success: "application/json")
        ],
        "/metrics": [
            "get": plain("metrics", "Prometheus metrics (loopback or bearer token only).", tags: "Operations", success: "text/plain")
        ],
        "/openapi.json": ["get": plain("openapi", "This document.", tags: "Operations", success: "application/json")],
    ]

    private static func plain(
        _ id: String, _ summary: String, tags: String, parameters: [JSONValue] = [], success: String, body: String? = nil
    ) -> JSONValue {
        var described: [String: JSONValue] = [
            "operationId": .string(id), "summary": .string(summary), "tags": .array([.string(tags)]),
            "responses": responses(success: "Success.", successType: success, successSchema: .object([:])),
        ]
        if !parameters.isEmpty { described["parameters"] = .array(parameters) }
        if let body {
            described["requestBody"] = .object(["content": .object([body: .object(["schema": .object([:])])])])
        }
        return .object(described)
    }

    private static func responses(success: String, successType: String, successSchema: JSONValue) -> JSONValue {
        .object([
            "200": .object(["description": .string(success), "content": .object([successType: .object(["schema": successSchema])])]),
            "default": .object([
                "description": "A refusal: a CloudKit error body with the HTTP status its code maps to.",
                "content": .object(["application/json": .object(["schema": .object(["$ref": "#/components/schemas/CloudKitError"])])]),
            ]),
        ])
    }

    private static func pathParameter(_ name: String, _ description: String, values: [String]? = nil) -> JSONValue {
        var schema: [String: JSONValue] = ["type": "string"]
        if let values { schema["enum"] = .array(values.map { .string($0) }) }
        return .object([
            "name": .string(name), "in": "path", "required": .bool(true), "description": .string(description), "schema": .object(schema),
        ])
    }

    private static func queryParameter(_ name: String, _ description: String) -> JSONValue {
        .object([
            "name": .string(name), "in": "query", "required": .bool(false), "description": .string(description),
            "schema": .object(["type": "string"]),
        ])
    }

    /// The CloudKit error body every refusal carries.
    static let errorSchema: JSONValue = .object([
        "type": "object",
        "required": ["serverErrorCode", "reason"],
        "properties": .object([
            "uuid": .object(["type": "string"]),
            "serverErrorCode": .object(["type": "string"]),
            "reason": .object(["type": "string"]),
            "retryAfter": .object(["type": "number"]),
            "redirectURL": .object(["type": "string"]),
        ]),
    ])
}
