import Foundation
import StratusHTTP
import StratusServer
import StratusWire

/// Users (accounts, signing out) and API tokens, through ``AccountAdministration``.
extension Console {
    struct UserAnswer: Encodable {
        var userRecordName: String
        var email: String
        var discoverable: Bool
        var verified: Bool
        var createdAt: Int64
    }

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

    struct Discoverability: Decodable {
        var discoverable: Bool
    }

    struct NewToken: Decodable {
        var container: String
        var environment: String
        var name: String
    }

    func registerTokens(on router: inout Router) {
        read(&router, Self.basePath + "/api/users") { [self] _, _ in
            let users = try await accountAdministration().users()
            return try .json(
                users.map {
                    UserAnswer(
                        userRecordName: $0.userRecordName, email: $0.emailAddress, discoverable: $0.isDiscoverable, verified: $0.isEmailVerified,
                        createdAt: $0.createdAt
                    )
                })
        }
        change(&router, Self.basePath + "/api/users/{user}/signout") { [self] request, caller in
            let user = try await accountAdministration().user(matching: try request.parameter("user"))
            let now = configuration.now()
            try await accounts?.writeAccounts { try $0.revokeSessions(ofUser: user.userRecordName, at: now) }
            try await audit(caller, "users.signout-all", target: user.emailAddress)
            return try .json(["signedOut": user.userRecordName])
        }
        change(&router, Self.basePath + "/api/users/{user}/discoverable") { [self] request, caller in
            let body = try Self.decode(Discoverability.self, from: request)
            let user = try await accountAdministration().setDiscoverable(body.discoverable, forUserMatching: try request.parameter("user"))
            try await audit(caller, "users.discoverable", target: user.emailAddress, detail: body.discoverable ? "on" : "off")
            return try .json(["discoverable": body.discoverable])
        }
        registerKeys(on: &router)
        read(&router, Self.basePath + "/api/tokens") { [self] request, _ in
            let tokens = try await accountAdministration().apiTokens(container: request.query["container"])
            return try .json(tokens.map { Self.answer($0, token: nil) })
        }
        change(&router, Self.basePath + "/api/tokens") { [self] request, caller in
            let body = try Self.decode(NewToken.self, from: request)
            guard let environment = Environment(rawValue: body.environment) else {
                throw HTTPError.badRequest("unknown environment '\(body.environment)'; use 'development' or 'production'")
            }
            try await requireContainer(body.container)
            let (token, record) = try await accountAdministration().createAPIToken(
                container: body.container, environment: environment, name: body.name
            )
            try await audit(caller, "tokens.create", target: "\(body.container)/\(body.environment)", detail: "\(record.prefix)… \(body.name)")
            return try .json(Self.answer(record, token: token))
        }
        change(&router, Self.basePath + "/api/tokens/{prefix}/revoke") { [self] request, caller in
            let prefix = try request.parameter("prefix")
            guard prefix.count == 8 else { throw HTTPError.badRequest("name a token by the 8 characters the list shows") }
            let record = try await accountAdministration().revokeAPIToken(prefix)
            try await audit(caller, "tokens.revoke", target: "\(record.container)/\(record.environment.rawValue)", detail: "\(record.prefix)… \(record.name)")
            return try .json(Self.answer(record, token: nil))
        }
    }

    /// Server-to-server keys: listed and revoked (adding one takes a public key file: `stratus key add`).
    private func registerKeys(on router: inout Router) {
        read(&router, Self.basePath + "/api/keys") { [self] request, _ in
            let keys = try await accountAdministration().serverKeys(container: request.query["container"])
            return try .json(
                keys.map {
                    KeyAnswer(
                        keyID: $0.keyID, container: $0.container, environment: $0.environment.rawValue, name: $0.name, createdAt: $0.createdAt,
                        revokedAt: $0.revokedAt
                    )
                })
        }
        change(&router, Self.basePath + "/api/keys/{keyID}/revoke") { [self] request, caller in
            let key = try await accountAdministration().revokeServerKey(try request.parameter("keyID"))
            try await audit(caller, "keys.revoke", target: "\(key.container)/\(key.environment.rawValue)", detail: "\(key.keyID) \(key.name)")
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

    static func answer(_ record: APITokenRecord, token: String?) -> TokenAnswer {
        TokenAnswer(
            prefix: record.prefix, container: record.container, environment: record.environment.rawValue, name: record.name,
            createdAt: record.createdAt, revokedAt: record.revokedAt, token: token
        )
    }
}
