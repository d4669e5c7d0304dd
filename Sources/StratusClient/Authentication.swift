public import StratusCrypto

/// How requests prove who they are (Apple's CloudKit Web Services Reference: “Authentication”).
///
/// Secrets never appear in `description` or `dump` output.
///
/// A server-to-server key's private key is a ``P256PrivateKey`` from `StratusCrypto`, which the
/// example imports too.
///
/// ```swift
/// import StratusClient
/// import StratusCrypto
///
/// func credentials(apiToken: String, sessionToken: String, keyID: String, pem: String) throws -> (user: Authentication, backend: Authentication) {
///     let user = Authentication.apiToken(apiToken, webAuthToken: sessionToken)
///     let backend = Authentication.serverToServer(keyID: keyID, privateKey: try P256PrivateKey(pemRepresentation: pem))
///     return (user, backend)
/// }
/// ```
public struct Authentication: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    enum Scheme: Sendable {
        case none
        case apiToken(String, webAuthToken: String?)
        case serverToServer(keyID: String, privateKey: P256PrivateKey)
    }

    let scheme: Scheme

    /// No credentials: for a Stratus server in open mode.
    public static let none = Authentication(scheme: .none)

    /// An API token alone: anonymous access to the public database (`?ckAPIToken=`).
    ///
    /// - Parameter token: The container's API token.
    /// - Returns: The authentication.
    public static func apiToken(_ token: String) -> Authentication {
        Authentication(scheme: .apiToken(token, webAuthToken: nil))
    }

    /// An API token and a signed-in user's web auth token (`?ckAPIToken=…&ckWebAuthToken=…`).
    ///
    /// The web auth token is replaced by the one each response carries in
    /// `X-Apple-CloudKit-Web-Auth-Token`; read the latest from ``Container/webAuthToken``.
    ///
    /// - Parameters:
    ///   - token: The container's API token.
    ///   - webAuthToken: The user's session token.
    /// - Returns: The authentication.
    public static func apiToken(_ token: String, webAuthToken: String) -> Authentication {
        Authentication(scheme: .apiToken(token, webAuthToken: webAuthToken))
    }

    /// A server-to-server key: every request is signed with ECDSA P-256 (public database only).
    ///
    /// - Parameters:
    ///   - keyID: The key ID the dashboard issued.
    ///   - privateKey: The private half of the registered key.
    /// - Returns: The authentication.
    public static func serverToServer(keyID: String, privateKey: P256PrivateKey) -> Authentication {
        Authentication(scheme: .serverToServer(keyID: keyID, privateKey: privateKey))
    }

    /// The scheme's name, secrets redacted.
    public var description: String {
        switch scheme {
        case .none: "Authentication.none"
        case .apiToken(_, let webAuthToken):
            webAuthToken == nil ? "Authentication.apiToken(<redacted>)" : "Authentication.apiToken(<redacted>, webAuthToken: <redacted>)"
        case .serverToServer(let keyID, _): "Authentication.serverToServer(keyID: \(keyID), privateKey: <redacted>)"
        }
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// A mirror without the secrets, so `dump` prints nothing sensitive.
    public var customMirror: Mirror { Mirror(self, children: ["scheme": description]) }
}
