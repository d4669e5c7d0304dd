import Foundation
import StratusCrypto
import StratusHTTP
import StratusWire

extension Authenticator {
    /// What the head of a request says about its credentials, before its body is read.
    enum Screening: Sendable {
        /// The credentials could be valid: read the body, then authenticate for real.
        case plausible
        /// The credentials cannot be valid; the error is the opaque 401.
        case failed(ServiceError)
        /// A store read decides: it answers the 401 to send, or `nil` for plausible.
        case lookUp(@Sendable () async throws -> ServiceError?)
    }

    /// Screens a request head's credentials for `container` and `environment` without its body,
    /// so a request that cannot authenticate is refused before its body is read (design note
    /// 0006, "Screening the head").
    ///
    /// It checks what needs no body: that there are credentials at all, of one scheme; that a web
    /// auth token was sealed by this server; that the API token or server-to-server key exists,
    /// is not revoked and belongs to the container environment; that a signature's date is
    /// acceptable. Records come from short-lived caches of their own, so a client that keeps
    /// using one token costs no store read here; an unknown token costs one. Sessions and
    /// signatures are checked only by ``authenticate(_:container:environment:)``, after the body.
    ///
    /// - Parameters:
    ///   - head: The request, without its body.
    ///   - container: The container of its URL.
    ///   - environment: The environment of its URL.
    /// - Returns: Whether the credentials could be valid, cannot be, or need a store read to tell.
    func screen(_ head: HTTPRequest, container: String, environment: Environment) -> Screening {
        let apiToken = head.query[Self.apiTokenParameter].flatMap { $0.isEmpty ? nil : $0 }
        let signed = SignatureHeaders(head.headers)
        if signed.keyID != nil || signed.date != nil || signed.signature != nil {
            guard apiToken == nil else {
                return .failed(failure("a request carries both ckAPIToken and server-to-server signature headers", head))
            }
            return screenSignature(signed, head, container: container, environment: environment)
        }
        guard let apiToken else {
            return .failed(failure("the request has neither a ckAPIToken nor server-to-server signature headers", head))
        }
        if let presented = head.query[Self.webAuthTokenParameter], !presented.isEmpty, tokens.open(presented) == nil {
            return .failed(failure("the ckWebAuthToken is malformed or was not issued by this server", head))
        }
        let tokenHash = hash(apiToken: apiToken)
        let now = now()
        let verdict: @Sendable (APITokenRecord?) -> ServiceError? = { [self] record in
            guard let record else { return failure("unknown API token", head) }
            return Self.problem(with: record, container: container, environment: environment).map { failure($0, head) }
        }
        if let record = screenedTokens.cachedValue(tokenHash, generation: nil, now: now) {
            return verdict(record).map(Screening.failed) ?? .plausible
        }
        return .lookUp { [self, accounts] in
            let record = try await screenedTokens.value(tokenHash, generation: nil, now: now) {
                try await accounts.readAccounts { try $0.apiToken(hash: tokenHash) }
            }
            return verdict(record)
        }
    }

    private func screenSignature(
        _ headers: SignatureHeaders, _ head: HTTPRequest, container: String, environment: Environment
    ) -> Screening {
        guard let keyID = headers.keyID, let date = headers.date, headers.signature != nil else {
            return .failed(failure("incomplete server-to-server signature headers", head))
        }
        let now = now()
        let nowDate = Date(timeIntervalSince1970: TimeInterval(now) / 1000)
        guard ServerToServerSignature.isDateAcceptable(date, now: nowDate, tolerance: configuration.serverToServerDateTolerance) else {
            return .failed(failure("server-to-server date '\(date)' is malformed or too far from the server's clock", head))
        }
        guard keyID.utf8.count <= 256 else { return .failed(failure("server-to-server key ID is too long", head)) }
        let verdict: @Sendable (ServerKeyRecord?) -> ServiceError? = { [self] record in
            guard let record else { return failure("unknown server-to-server key '\(keyID)'", head) }
            if record.revokedAt != nil { return failure("server-to-server key '\(keyID)' was revoked", head) }
            guard record.container == container, record.environment == environment else {
                return failure("server-to-server key '\(keyID)' belongs to \(record.container)/\(record.environment.rawValue)", head)
            }
            return nil
        }
        if let record = screenedKeys.cachedValue(keyID, generation: nil, now: now) {
            return verdict(record).map(Screening.failed) ?? .plausible
        }
        return .lookUp { [self, accounts] in
            let record = try await screenedKeys.value(keyID, generation: nil, now: now) {
                try await accounts.readAccounts { try $0.serverKey(id: keyID) }
            }
            return verdict(record)
        }
    }
}
