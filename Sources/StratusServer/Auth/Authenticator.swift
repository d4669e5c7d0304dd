import Foundation
import StratusCrypto
import StratusServerCrypto
import StratusHTTP
import StratusLogging
import StratusWire
import Synchronization

/// Checks the credentials of CloudKit requests (Apple's CloudKit Web Services Reference: “Authentication”) and says who calls.
///
/// Three schemes: an API token alone (anonymous, public reads), an API token
/// with a web auth token (a signed-in user), or a server-to-server signature (the
/// public database, as the key). Every failure is the same opaque 401
/// `AUTHENTICATION_FAILED`; the real reason goes to the log with the request ID.
final class Authenticator: Sendable {
    let accounts: any AccountStore
    let configuration: AuthenticationConfiguration
    let openModeUserRecordName: String
    let now: @Sendable () -> Int64
    let tokens: WebAuthTokenCodec
    /// The sign-in forms' anti-forgery tokens.
    let forms: SignInForgeryGuard
    /// The tickets of verification links.
    let signUpTickets: SignUpTicketCodec
    let hasher: PasswordHasher
    let throttle: SignInThrottle
    let logger: Logger
    /// Server-to-server keys read recently, parsed, while the store's credential generation holds.
    private let serverKeys: CredentialCache<ServerKey>
    /// Server-to-server signatures accepted within their date tolerance, so none is accepted twice.
    private let replays: SignatureReplayGuard
    /// API-token records of anonymous requests, by token hash, while the credential generation holds.
    private let apiTokens = CredentialCache<APITokenRecord>()
    /// API-token records read to screen request heads (``screen(_:container:environment:)``); a
    /// minute's staleness only lets a revoked token's body be read before authentication refuses it.
    let screenedTokens = CredentialCache<APITokenRecord>(lifetime: .seconds(60))
    /// Server-to-server key records read to screen request heads, likewise.
    let screenedKeys = CredentialCache<ServerKeyRecord>(lifetime: .seconds(60))
    /// Parsed public keys by PEM, for key records read again (a PEM parse costs about a millisecond).
    private let parsedKeys = Mutex<[String: P256PublicKey]>([:])
    /// The hashes of API tokens presented lately, by token (``hash(apiToken:)``).
    private let apiTokenHashes = RecentValues<String>(capacity: 1_024)
    /// The allowed CORS origins of API tokens this process has seen, by token hash (bounded).
    private let originsByToken = Mutex<[String: [String]]>([:])
    /// A hash no password matches, verified for unknown e-mail addresses so they take as long as known ones.
    let decoyHash = Mutex<String?>(nil)

    init(accounts: any AccountStore, configuration: ServiceConfiguration, logger: Logger) {
        self.accounts = accounts
        self.configuration = configuration.authentication
        self.openModeUserRecordName = configuration.openModeUserRecordName
        self.now = configuration.now
        self.tokens = WebAuthTokenCodec(secret: configuration.tokenSecret)
        self.forms = SignInForgeryGuard(secret: configuration.tokenSecret)
        self.signUpTickets = SignUpTicketCodec(secret: configuration.tokenSecret)
        self.hasher = PasswordHasher(configuration: configuration.authentication.passwordHashing)
        self.throttle = SignInThrottle(limits: configuration.authentication.signInLimits)
        self.serverKeys = CredentialCache(lifetime: configuration.authentication.serverKeyCacheLifetime)
        self.replays = SignatureReplayGuard(capacity: configuration.authentication.serverToServerReplayCapacity, logger: logger)
        self.logger = logger
    }

    /// The outcome of checking a request's credentials.
    struct Outcome: Sendable {
        var principal: Principal
        /// A fresh web auth token for the response header, for signed-in users.
        var refreshedToken: String?
    }

    /// The query parameter carrying the API token.
    static let apiTokenParameter = "ckAPIToken"
    /// The query parameter carrying the web auth token.
    static let webAuthTokenParameter = "ckWebAuthToken"
    /// The response header carrying a refreshed web auth token.
    static let refreshedTokenHeader = "X-Apple-CloudKit-Web-Auth-Token"

    /// Checks the request's credentials for `container` and `environment`.
    ///
    /// - Throws: ``ServiceError`` `AUTHENTICATION_FAILED` for any bad credential.
    func authenticate(_ request: HTTPRequest, container: String, environment: Environment) async throws -> Outcome {
        guard configuration.requiresAuthentication else {
            return Outcome(principal: .openMode(userRecordName: openModeUserRecordName))
        }
        let apiToken = request.query[Self.apiTokenParameter].flatMap { $0.isEmpty ? nil : $0 }
        let signed = SignatureHeaders(request.headers)
        if signed.keyID != nil || signed.date != nil || signed.signature != nil {
            guard apiToken == nil else {
                throw failure("a request carries both ckAPIToken and server-to-server signature headers", request)
            }
            return Outcome(principal: try await verifySignature(signed, request, container: container, environment: environment))
        }
        guard let apiToken else {
            throw failure("the request has neither a ckAPIToken nor server-to-server signature headers", request)
        }
        var contents: WebAuthTokenCodec.Contents?
        if let presented = request.query[Self.webAuthTokenParameter], !presented.isEmpty {
            guard let opened = tokens.open(presented) else {
                throw failure("the ckWebAuthToken is malformed or was not issued by this server", request)
            }
            contents = opened
        }
        let tokenHash = hash(apiToken: apiToken)
        let record: APITokenRecord?
        let session: WebAuthSession?
        if let sessionID = contents?.sessionID {
            // The session changes with use, so it is read every time, with the token in the same read:
            // on this thread when the store can (no hop to a reader connection and back), else as usual.
            let read: @Sendable (any AccountStoreReader) throws -> (APITokenRecord?, WebAuthSession?) = { tx in
                (try tx.apiToken(hash: tokenHash), try tx.session(id: sessionID))
            }
            if let inPlace = try accounts.readAccountsInPlace(read) {
                (record, session) = inPlace
            } else {
                (record, session) = try await accounts.readAccounts(read)
            }
        } else {
            let generation = (try? accounts.credentialGeneration()) ?? nil
            let accounts = self.accounts
            record = try await apiTokens.value(tokenHash, generation: generation, now: now()) {
                try await accounts.readAccounts { try $0.apiToken(hash: tokenHash) }
            }
            session = nil
        }
        guard let record else { throw failure("unknown API token", request) }
        remember(origins: record.revokedAt == nil ? record.allowedOrigins : nil, tokenHash: tokenHash)
        if let problem = Self.problem(with: record, container: container, environment: environment) { throw failure(problem, request) }
        guard let contents else { return Outcome(principal: .anonymous(apiToken: apiToken)) }
        let live = try checkSession(session, contents: contents, container: container, request)
        let now = now()
        if contents.issuedAt > live.newestTokenUsedAt + tokenUseGranularity {
            try await accounts.writeAccounts { try $0.noteTokenUse(sessionID: live.sessionID, issuedAt: contents.issuedAt) }
        }
        return Outcome(
            principal: .user(userRecordName: live.userRecordName, sessionID: live.sessionID, apiToken: apiToken),
            refreshedToken: try tokens.seal(sessionID: live.sessionID, issuedAt: now)
        )
    }

    /// Why an API token may not be used for `container` and `environment`, or `nil` if it may.
    static func problem(with record: APITokenRecord, container: String, environment: Environment) -> String? {
        if record.revokedAt != nil { return "API token \(record.prefix)… was revoked" }
        guard record.container == container, record.environment == environment else {
            return "API token \(record.prefix)… belongs to \(record.container)/\(record.environment.rawValue), not \(container)/\(environment.rawValue)"
        }
        return nil
    }

    private func remember(origins: [String]?, tokenHash: String) {
        originsByToken.withLock { table in
            if table.count >= 10_000, table[tokenHash] == nil { table.removeAll() }
            table[tokenHash] = origins
        }
    }

    /// The allowed origins of an API token as of its last use in this process (`nil` if not seen);
    /// an empty list allows every origin.
    func allowedOrigins(ofToken token: String) -> [String]? {
        let tokenHash = hash(apiToken: token)
        return originsByToken.withLock { $0[tokenHash] }
    }

    /// How far the newest-token-used mark may lag, so a busy session writes it at most once a minute.
    private var tokenUseGranularity: Int64 {
        min(configuration.webAuthTokenGracePeriod.milliseconds / 5, 60_000)
    }

    /// The session a web auth token names, if it is live, of this container, unexpired and not superseded.
    ///
    /// - Throws: ``ServiceError`` `AUTHENTICATION_FAILED` for a bad token; `AUTHENTICATION_REQUIRED`
    ///   (without a `redirectURL`, which the caller adds) for a session past its absolute lifetime.
    private func checkSession(
        _ session: WebAuthSession?, contents: WebAuthTokenCodec.Contents, container: String, _ request: HTTPRequest
    ) throws -> WebAuthSession {
        guard let session else { throw failure("the web auth token names session \(contents.sessionID), which does not exist", request) }
        guard session.accountDisabledAt == nil else { throw Self.disabled(session.userRecordName) }
        guard session.revokedAt == nil else { throw failure("session \(session.sessionID) was signed out", request) }
        guard session.container == container else {
            throw failure("session \(session.sessionID) was opened for \(session.container), not \(container)", request)
        }
        let now = now()
        let sessionLifetime = (session.keepSignedIn ? configuration.keepSignedInSessionLifetime : configuration.sessionLifetime).milliseconds
        guard now - session.createdAt <= sessionLifetime else {
            // Over: however fresh the token, the user signs in again (421 with the sign-in page, see `authorize`).
            logger.notice(
                "session \(session.sessionID) began at \(session.createdAt) and is past its lifetime of \(sessionLifetime) ms; sign-in needed",
                metadata: ["request-id": request.requestID]
            )
            throw ServiceError(.authenticationRequired, "request needs authorization")
        }
        let lifetime = (session.keepSignedIn ? configuration.keepSignedInLifetime : configuration.webAuthTokenLifetime).milliseconds
        guard contents.issuedAt <= now + 60_000, now - contents.issuedAt <= lifetime else {
            throw failure("the web auth token of session \(session.sessionID) expired (issued at \(contents.issuedAt), now \(now))", request)
        }
        guard contents.issuedAt >= session.newestTokenUsedAt - configuration.webAuthTokenGracePeriod.milliseconds else {
            throw failure("the web auth token of session \(session.sessionID) was superseded by a newer one beyond the grace period", request)
        }
        return session
    }

    /// Checks the server-to-server headers exactly as Apple's CloudKit Web Services Reference: “Server-to-server keys” says.
    private func verifySignature(
        _ headers: SignatureHeaders, _ request: HTTPRequest, container: String, environment: Environment
    ) async throws -> Principal {
        guard let keyID = headers.keyID, let date = headers.date, let signature = headers.signature else {
            throw failure("incomplete server-to-server signature headers", request)
        }
        let nowDate = Date(timeIntervalSince1970: TimeInterval(now()) / 1000)
        let tolerance = configuration.serverToServerDateTolerance
        guard let signedAt = ServerToServerSignature.date(from: date), abs(nowDate.timeIntervalSince(signedAt)) <= tolerance else {
            throw failure("server-to-server date '\(date)' is malformed or too far from the server's clock", request)
        }
        guard keyID.utf8.count <= 256 else { throw failure("server-to-server key ID is too long", request) }
        // Read before the key, so a change committed while the key loads is seen next time.
        let generation = (try? accounts.credentialGeneration()) ?? nil
        guard let key = try await serverKeys.value(keyID, generation: generation, now: now(), load: { try await loadKey(keyID, request) }) else {
            throw failure("unknown server-to-server key '\(keyID)'", request)
        }
        guard key.record.revokedAt == nil, let publicKey = key.publicKey else {
            throw failure("server-to-server key '\(keyID)' was revoked", request)
        }
        guard key.record.container == container, key.record.environment == environment else {
            throw failure("server-to-server key '\(keyID)' belongs to \(key.record.container)/\(key.record.environment.rawValue)", request)
        }
        let valid = Self.signedPaths(request.path).contains { path in
            ServerToServerSignature.isValidSignature(signature, date: date, body: request.body, path: path, publicKey: publicKey)
        }
        guard valid else { throw failure("server-to-server signature does not match key '\(keyID)', date, body and path", request) }
        // Checked after the signature, so only requests the key's holder signed take up room.
        let expiry = Int64(((signedAt.timeIntervalSince1970 + tolerance) * 1000).rounded(.up))
        guard let identity = ServerToServerSignature.replayIdentity(ofSignature: signature, keyID: keyID),
            replays.admit(identity, expiresAt: expiry, now: now())
        else {
            throw failure("server-to-server signature of key '\(keyID)' dated \(date) was already used: a replayed request", request)
        }
        return .serverKey(keyID: keyID, userRecordName: key.userRecordName)
    }

    /// A key record and what a signed request needs from it.
    struct ServerKey: Sendable {
        var record: ServerKeyRecord
        /// The parsed public key; `nil` for a revoked key (never verified against).
        var publicKey: P256PublicKey?
        /// The identity records written with the key carry.
        var userRecordName: String
    }

    /// The server-to-server headers of a request, found in one pass over the headers.
    ///
    /// The three names share the 25-byte prefix `X-Apple-CloudKit-Request-`, and two of them are
    /// 36 bytes long, so three `HTTPHeaders` lookups compared most of every name three times
    /// (9.5 k instructions a signed request, callgrind). Here a header of another length is skipped
    /// at once, and the others are compared, ignoring ASCII case, over their contiguous UTF-8 bytes.
    /// As with `HTTPHeaders`, the first of repeated headers counts.
    struct SignatureHeaders {
        var keyID: String?
        var date: String?
        var signature: String?

        private static let keyIDName = Array(ServerToServerSignature.keyIDHeaderName.lowercased().utf8)
        private static let dateName = Array(ServerToServerSignature.dateHeaderName.lowercased().utf8)
        private static let signatureName = Array(ServerToServerSignature.signatureHeaderName.lowercased().utf8)

        init(_ headers: HTTPHeaders) {
            for (name, value) in headers {
                let length = name.utf8.count
                guard length == Self.keyIDName.count || length == Self.dateName.count || length == Self.signatureName.count else { continue }
                var name = name
                name.withUTF8 { bytes in
                    if keyID == nil, Self.equal(bytes, Self.keyIDName) {
                        keyID = value
                    } else if date == nil, Self.equal(bytes, Self.dateName) {
                        date = value
                    } else if signature == nil, Self.equal(bytes, Self.signatureName) {
                        signature = value
                    }
                }
            }
        }

        /// Whether `bytes` spell `lowercase`, ignoring ASCII case.
        private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: [UInt8]) -> Bool {
            guard bytes.count == lowercase.count else { return false }
            for index in lowercase.indices {
                let byte = bytes[index]
                let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                if folded != lowercase[index] { return false }
            }
            return true
        }
    }

    /// Reads a key record and parses its public key (a revoked key's is not parsed).
    private func loadKey(_ keyID: String, _ request: HTTPRequest) async throws -> ServerKey? {
        guard let record = try await accounts.readAccounts({ try $0.serverKey(id: keyID) }) else { return nil }
        guard record.revokedAt == nil else { return ServerKey(record: record, publicKey: nil, userRecordName: "") }
        let userRecordName = Self.userRecordName(ofKey: keyID)
        if let parsed = parsedKeys.withLock({ $0[record.publicKeyPEM] }) {
            return ServerKey(record: record, publicKey: parsed, userRecordName: userRecordName)
        }
        do {
            let publicKey = try P256PublicKey(pemRepresentation: record.publicKeyPEM)
            parsedKeys.withLock { table in
                if table.count >= 1_000 { table.removeAll() }
                table[record.publicKeyPEM] = publicKey
            }
            return ServerKey(record: record, publicKey: publicKey, userRecordName: userRecordName)
        } catch {
            throw failure("server-to-server key '\(keyID)' has an unreadable public key: \(error)", request)
        }
    }

    /// The path as the transport decoded it, and as a client that percent-encodes each segment signs it.
    ///
    /// The encoded form is built only when the path has a byte to encode (a CloudKit path
    /// rarely has), so the common case costs one scan.
    static func signedPaths(_ path: String) -> [String] {
        var contiguous = path
        let plain = contiguous.withUTF8 { utf8 in
            for byte in utf8 {
                let unreserved =
                    byte == UInt8(ascii: "/") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
                    || byte == UInt8(ascii: "~") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
                if !unreserved { return false }
            }
            return true
        }
        if plain { return [path] }
        let encoded = path.split(separator: "/", omittingEmptySubsequences: false)
            .map { String($0).addingPercentEncoding(withAllowedCharacters: URLText.unreserved) ?? String($0) }
            .joined(separator: "/")
        return encoded == path ? [path] : [path, encoded]
    }

    /// The identity records written with a server-to-server key carry: `_` + 32 hex derived from the key ID.
    static func userRecordName(ofKey keyID: String) -> String {
        "_" + SHA256.hash("stratus server-to-server key " + keyID).hexString.prefix(32)
    }

    /// The stored form of an API token: lowercase hex SHA-256.
    static func hash(_ token: String) -> String {
        SHA256Hex.digest(of: token)
    }

    /// ``hash(_:)`` of a presented API token, computed once per token (``apiTokenHashes``), not
    /// twice per request (screening, then authentication) of every client that sends it.
    func hash(apiToken: String) -> String {
        guard apiToken.utf8.count <= 128 else { return Self.hash(apiToken) }
        return apiTokenHashes.value(of: apiToken) { Self.hash($0) } ?? Self.hash(apiToken)
    }

    /// Logs why authentication failed and returns the opaque error the client sees.
    func failure(_ reason: String, _ request: HTTPRequest) -> ServiceError {
        logger.notice("authentication failed: \(reason)", metadata: ["request-id": request.requestID])
        return ServiceError(.authenticationFailed, "authentication failed")
    }
}

/// Characters and helpers for URLs the sign-in flow builds.
enum URLText {
    /// RFC 3986 unreserved characters: everything else is percent-encoded in a query value.
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `value` percent-encoded for a query string (`+`, `/` and `=` included).
    static func queryValue(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
