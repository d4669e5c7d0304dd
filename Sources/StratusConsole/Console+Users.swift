import Foundation
import StratusHTTP
import StratusServer
import StratusWire

/// Users: accounts, discoverability, disabling, and their sessions (one or all signed out),
/// through ``AccountAdministration``.
extension Console {
    struct UserAnswer: Encodable {
        var userRecordName: String
        var email: String
        var discoverable: Bool
        var verified: Bool
        var disabled: Bool
        var createdAt: Int64
    }

    struct UserSessionAnswer: Encodable {
        var sessionID: String
        var container: String
        var keepSignedIn: Bool
        var createdAt: Int64
        var lastUsedAt: Int64
        var revokedAt: Int64?
    }

    struct Discoverability: Decodable {
        var discoverable: Bool
    }

    struct Disablement: Decodable {
        var disabled: Bool
    }

    func registerUsers(on router: inout Router) {
        read(&router, Self.basePath + "/api/users") { [self] _, _ in
            try .json(try await accountAdministration().users().map(Self.userAnswer))
        }
        change(&router, Self.basePath + "/api/users/{user}/signout") { [self] request, caller in
            let user = try await accountAdministration().user(matching: try request.parameter("user"))
            let now = configuration.now()
            try await auditLog.change(caller, "users.signout-all", target: user.emailAddress) {
                try await accounts?.writeAccounts { try $0.revokeSessions(ofUser: user.userRecordName, at: now) }
                return ((), ConsoleAuditLog.Conclusion(target: user.emailAddress))
            }
            return try .json(["signedOut": user.userRecordName])
        }
        change(&router, Self.basePath + "/api/users/{user}/discoverable") { [self] request, caller in
            let body = try Self.decode(Discoverability.self, from: request)
            let named = try request.parameter("user")
            let setting = body.discoverable ? "on" : "off"
            try await auditLog.change(caller, "users.discoverable", target: named, detail: setting) {
                let user = try await accountAdministration().setDiscoverable(body.discoverable, forUserMatching: named)
                return ((), ConsoleAuditLog.Conclusion(target: user.emailAddress, detail: setting))
            }
            return try .json(["discoverable": body.discoverable])
        }
        change(&router, Self.basePath + "/api/users/{user}/disabled") { [self] request, caller in
            let body = try Self.decode(Disablement.self, from: request)
            let named = try request.parameter("user")
            let user = try await auditLog.change(caller, body.disabled ? "users.disable" : "users.enable", target: named) {
                let user = try await accountAdministration().setDisabled(body.disabled, forUserMatching: named)
                return (user, ConsoleAuditLog.Conclusion(target: user.emailAddress))
            }
            return try .json(Self.userAnswer(user))
        }
        read(&router, Self.basePath + "/api/users/{user}/sessions") { [self] request, _ in
            let (_, sessions) = try await accountAdministration().sessions(ofUserMatching: try request.parameter("user"))
            return try .json(sessions.map(Self.sessionAnswer))
        }
        change(&router, Self.basePath + "/api/users/{user}/sessions/{session}/signout") { [self] request, caller in
            let (named, sessionID) = (try request.parameter("user"), try request.parameter("session"))
            let session = try await auditLog.change(caller, "users.signout-session", target: named, detail: sessionID) {
                let (user, session) = try await accountAdministration().endSession(sessionID, ofUserMatching: named)
                return (session, ConsoleAuditLog.Conclusion(target: user.emailAddress, detail: session.sessionID))
            }
            return try .json(Self.sessionAnswer(session))
        }
    }

    static func userAnswer(_ user: UserAccount) -> UserAnswer {
        UserAnswer(
            userRecordName: user.userRecordName, email: user.emailAddress, discoverable: user.isDiscoverable, verified: user.isEmailVerified,
            disabled: user.isDisabled, createdAt: user.createdAt
        )
    }

    static func sessionAnswer(_ session: WebAuthSession) -> UserSessionAnswer {
        UserSessionAnswer(
            sessionID: session.sessionID, container: session.container, keepSignedIn: session.keepSignedIn, createdAt: session.createdAt,
            lastUsedAt: session.newestTokenUsedAt, revokedAt: session.revokedAt
        )
    }
}
