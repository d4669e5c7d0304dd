import Foundation
import StratusHTTP
import StratusServer
import StratusWire

/// API tokens and server-to-server keys, through ``AccountAdministration``.
extension Console {
    struct TokenAnswer: Encodable {
        var prefix: String
        var container: String
        var environment: String
        var name: String
        var createdAt: Int64
        var revokedAt: Int64?
        /// The whole token: only in the answer to its creation.
        var token: String?
    }

    struct KeyAnswer: Encodable {
        var keyID: String
        var container: String
        var environment: String
        var name: String
        var createdAt: Int64
        var revokedAt: Int64?
    }

    struct NewToken: Decodable {
        var container: String
        var environment: String
        var name: String
    }

    struct NewKey: Decodable {
        var container: String
        var environment: String
        var name: String
        /// The P-256 public key, PEM (`openssl ec -in eckey.pem -pubout`).
        var publicKeyPEM: String
    }

    func registerTokens(on router: inout Router) {
        registerKeys(on: &router)
        read(&router, Self.basePath + "/api/tokens") { [self] request, _ in
            let tokens = try await accountAdministration().apiTokens(container: request.query["container"])
            return try .json(tokens.map { Self.answer($0, token: nil) })
        }
        change(&router, Self.basePath + "/api/tokens") { [self] request, caller in
            let body = try Self.decode(NewToken.self, from: request)
            let environment = try await requireContainer(body.container, environment: body.environment)
            let target = "\(body.container)/\(body.environment)"
            let (token, record) = try await auditLog.change(caller, "tokens.create", target: target, detail: body.name) {
                let created = try await accountAdministration().createAPIToken(container: body.container, environment: environment, name: body.name)
                return (created, ConsoleAuditLog.Conclusion(target: target, detail: "\(created.1.prefix)… \(body.name)"))
            }
            return try .json(Self.answer(record, token: token))
        }
        change(&router, Self.basePath + "/api/tokens/{prefix}/revoke") { [self] request, caller in
            let prefix = try request.parameter("prefix")
            guard prefix.count == 8 else { throw HTTPError.badRequest("name a token by the 8 characters the list shows") }
            let record = try await auditLog.change(caller, "tokens.revoke", target: "token \(prefix)…") {
                let record = try await accountAdministration().revokeAPIToken(prefix)
                return (
                    record, ConsoleAuditLog.Conclusion(target: "\(record.container)/\(record.environment.rawValue)", detail: "\(record.prefix)… \(record.name)")
                )
            }
            return try .json(Self.answer(record, token: nil))
        }
    }

    /// Server-to-server keys: added from a pasted public key (as `stratus key add`), listed and revoked.
    private func registerKeys(on router: inout Router) {
        read(&router, Self.basePath + "/api/keys") { [self] request, _ in
            let keys = try await accountAdministration().serverKeys(container: request.query["container"])
            return try .json(keys.map(Self.keyAnswer))
        }
        change(&router, Self.basePath + "/api/keys") { [self] request, caller in
            let body = try Self.decode(NewKey.self, from: request)
            let environment = try await requireContainer(body.container, environment: body.environment)
            let key = try await auditLog.change(caller, "keys.add", target: "\(body.container)/\(body.environment)", detail: body.name) {
                let key = try await accountAdministration().addServerKey(
                    container: body.container, environment: environment, name: body.name, publicKeyPEM: body.publicKeyPEM
                )
                return (key, ConsoleAuditLog.Conclusion(target: "\(key.container)/\(key.environment.rawValue)", detail: "\(key.keyID) \(key.name)"))
            }
            return try .json(Self.keyAnswer(key))
        }
        change(&router, Self.basePath + "/api/keys/{keyID}/revoke") { [self] request, caller in
            let keyID = try request.parameter("keyID")
            let key = try await auditLog.change(caller, "keys.revoke", target: "key \(keyID)") {
                let key = try await accountAdministration().revokeServerKey(keyID)
                return (key, ConsoleAuditLog.Conclusion(target: "\(key.container)/\(key.environment.rawValue)", detail: "\(key.keyID) \(key.name)"))
            }
            return try .json(["revoked": key.keyID])
        }
    }

    /// The administration, or 404 on a server that keeps no accounts (open mode).
    func accountAdministration() throws -> AccountAdministration {
        guard let administration else {
            throw HTTPError(status: .notFound, serverErrorCode: "NOT_FOUND", reason: "this server keeps no accounts (open mode)")
        }
        return administration
    }

    /// 404 unless the container exists.
    func requireContainer(_ container: String) async throws {
        guard try await records.read({ try $0.containerExists(container) }) else {
            throw HTTPError(status: .notFound, serverErrorCode: "NOT_FOUND", reason: "container '\(container)' does not exist")
        }
    }

    /// The environment named `name`, or 400; 404 unless the container exists.
    func requireContainer(_ container: String, environment name: String) async throws -> Environment {
        guard let environment = Environment(rawValue: name) else {
            throw HTTPError.badRequest("unknown environment '\(name)'; use 'development' or 'production'")
        }
        try await requireContainer(container)
        return environment
    }

    static func keyAnswer(_ key: ServerKeyRecord) -> KeyAnswer {
        KeyAnswer(
            keyID: key.keyID, container: key.container, environment: key.environment.rawValue, name: key.name, createdAt: key.createdAt,
            revokedAt: key.revokedAt
        )
    }

    static func answer(_ record: APITokenRecord, token: String?) -> TokenAnswer {
        TokenAnswer(
            prefix: record.prefix, container: record.container, environment: record.environment.rawValue, name: record.name,
            createdAt: record.createdAt, revokedAt: record.revokedAt, token: token
        )
    }
}
