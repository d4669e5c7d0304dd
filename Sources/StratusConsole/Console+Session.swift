import Foundation
import StratusHTTP
import StratusServer

/// Sign-in, sign-out and who is signed in.
extension Console {
    struct SignInBody: Decodable {
        var email: String
        var password: String
    }

    struct SessionAnswer: Encodable {
        var email: String
        var csrfToken: String
        var expiresAt: Int64
    }

    func registerSession(on router: inout Router) {
        router.route(.post, Self.basePath + "/api/signin", maximumBodySize: 16 << 10) { [self] request in
            // No session yet, so no anti-forgery token: a JSON body is what a cross-site form cannot send.
            guard (request.headers["Content-Type"] ?? "").lowercased().hasPrefix("application/json") else { throw ConsoleGate.forged }
            let body = try Self.decode(SignInBody.self, from: request)
            let (token, caller) = try await gate.signIn(email: body.email, password: body.password, address: request.remoteAddress ?? "unknown")
            try await audit(caller, "console.signin", target: caller.administrator.emailAddress, detail: "from \(request.remoteAddress ?? "unknown")")
            var response = try HTTPResponse.json(Self.answer(caller))
            response.headers.add("Set-Cookie", gate.setCookie(token, for: request))
            return Self.secured(response)
        }
        read(&router, Self.basePath + "/api/session") { _, caller in try .json(Self.answer(caller)) }
        change(&router, Self.basePath + "/api/signout") { [self] request, caller in
            try await gate.signOut(caller)
            try await audit(caller, "console.signout", target: caller.administrator.emailAddress)
            var response = try HTTPResponse.json(["signedOut": true])
            response.headers.add("Set-Cookie", gate.setCookie(nil, for: request))
            return response
        }
        read(&router, Self.basePath + "/api/audit") { [self] request, _ in
            let limit = min(max(Int(request.query["limit"] ?? "") ?? 100, 1), 500)
            let before = request.query["before"].flatMap { Int64($0) }
            return try .json(try await gate.store.readConsole { try $0.auditEntries(limit: limit, before: before) })
        }
    }

    static func answer(_ caller: ConsoleCaller) -> SessionAnswer {
        SessionAnswer(email: caller.administrator.emailAddress, csrfToken: caller.session.csrfToken, expiresAt: caller.session.expiresAt)
    }
}
