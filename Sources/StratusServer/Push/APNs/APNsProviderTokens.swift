import Foundation
import StratusCrypto
import Synchronization

/// The provider tokens (ES256 JSON Web Tokens) pushes are authorized with, one per signing key,
/// reused until ``APNsConfiguration/providerTokenLifetime`` and then signed anew.
///
/// A token is `base64url(header).base64url(claims).base64url(signature)` with the header
/// `{"alg":"ES256","kid":KEYID}`, the claims `{"iss":TEAMID,"iat":SECONDS}` and the signature
/// `r ‖ s` (64 bytes) over the first two parts. Apple refuses tokens older than an hour
/// (`403 ExpiredProviderToken`) and new tokens more often than every 20 minutes
/// (`429 TooManyProviderTokenUpdates`), so one token serves every push of a key for most of an hour.
///
/// ```swift
/// let tokens = APNsProviderTokens(lifetime: 50 * 60_000)
/// let jwt = try tokens.token(for: credentials, now: now)      // the same string for 50 minutes
/// tokens.expire(jwt, for: credentials)                        // after 403 ExpiredProviderToken
/// ```
final class APNsProviderTokens: Sendable {
    private struct Entry {
        var token: String
        var issuedAt: Int64
    }

    private struct Keys: Hashable {
        var keyID: String
        var teamID: String
        var pem: String
    }

    private let lifetime: Int64
    private let entries = Mutex<[Keys: Entry]>([:])
    private let signingKeys = Mutex<[String: P256PrivateKey]>([:])

    /// - Parameter lifetime: How long a token is reused, in milliseconds.
    init(lifetime: Int64) {
        self.lifetime = lifetime
    }

    /// The token to send with a push signed by `credentials` at `now` (milliseconds since 1970).
    ///
    /// - Throws: ``APNsCredentialsError`` if the stored key cannot sign.
    func token(for credentials: APNsCredentials, now: Int64) throws -> String {
        let keys = Keys(keyID: credentials.keyID, teamID: credentials.teamID, pem: credentials.privateKeyPEM)
        if let entry = entries.withLock({ $0[keys] }), isFresh(entry, now: now) {
            return entry.token
        }
        let signed = try sign(credentials, issuedAt: now)
        // Pushes that found no token at the same moment each signed one: the first stored wins, so
        // all of them (and every later push) use that one.
        return entries.withLock { entries in
            if let entry = entries[keys], isFresh(entry, now: now) { return entry.token }
            entries[keys] = Entry(token: signed, issuedAt: now)
            return signed
        }
    }

    /// Whether `entry` may still be used at `now`: younger than the lifetime, and not from the
    /// future by more than a minute (a clock set back makes a new token).
    private func isFresh(_ entry: Entry, now: Int64) -> Bool {
        now - entry.issuedAt < lifetime && entry.issuedAt - now < 60_000
    }

    /// Drops `token` after APNs called it expired, so the next ``token(for:now:)`` signs a new one;
    /// a token that was already replaced (by a concurrent push's refresh) is left alone.
    func expire(_ token: String, for credentials: APNsCredentials) {
        let keys = Keys(keyID: credentials.keyID, teamID: credentials.teamID, pem: credentials.privateKeyPEM)
        entries.withLock { entries in
            if entries[keys]?.token == token { entries[keys] = nil }
        }
    }

    /// Signs a new token.
    private func sign(_ credentials: APNsCredentials, issuedAt: Int64) throws -> String {
        let key = try signingKey(credentials)
        let header = #"{"alg":"ES256","kid":"\#(credentials.keyID)"}"#
        let claims = #"{"iss":"\#(credentials.teamID)","iat":\#(issuedAt / 1000)}"#
        let signingInput = Data(header.utf8).base64URLEncodedString() + "." + Data(claims.utf8).base64URLEncodedString()
        do {
            let signature = try key.rawSignature(for: Data(signingInput.utf8))
            return signingInput + "." + signature.base64URLEncodedString()
        } catch {
            throw APNsCredentialsError("the APNs key \(credentials.keyID) of \(credentials.container) could not sign: \(error)")
        }
    }

    /// The parsed key of `credentials`, read once per distinct key.
    private func signingKey(_ credentials: APNsCredentials) throws -> P256PrivateKey {
        if let key = signingKeys.withLock({ $0[credentials.privateKeyPEM] }) { return key }
        let key: P256PrivateKey
        do {
            key = try P256PrivateKey(pemRepresentation: credentials.privateKeyPEM)
        } catch {
            throw APNsCredentialsError("the stored APNs key \(credentials.keyID) of \(credentials.container) is not a P-256 private key")
        }
        signingKeys.withLock { keys in
            if keys.count > 64 { keys.removeAll() }
            keys[credentials.privateKeyPEM] = key
        }
        return key
    }
}
