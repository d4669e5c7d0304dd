import Foundation
import StratusCrypto
import StratusWire
import Synchronization

/// The latest web auth token, replaced from every response's `X-Apple-CloudKit-Web-Auth-Token`.
final class WebAuthTokenStore: Sendable {
    private let token: Mutex<String?>

    init(_ token: String?) { self.token = Mutex(token) }

    var current: String? { token.withLock { $0 } }

    func replace(with newToken: String) {
        token.withLock { $0 = newToken }
    }
}

/// Builds the exact HTTP request CloudKit Web Services expects for an operation (Apple's CloudKit Web Services Reference: “Transport and URL layout”, “Authentication”).
struct RequestBuilder: Sendable {
    /// The response header carrying a refreshed web auth token.
    static let webAuthTokenHeader = "X-Apple-CloudKit-Web-Auth-Token"

    let containerIdentifier: String
    let environment: StratusWire.Environment
    let serverURL: URL
    let authentication: Authentication
    let webAuthToken: WebAuthTokenStore
    let now: @Sendable () -> Date

    /// The request for `operation` in `database` with `body` (empty for `GET` operations).
    func request(
        _ operation: EndpointOperation, database: DatabaseScope, body: Data, timeout: Duration
    ) throws(StratusError) -> TransportRequest {
        let endpoint = Endpoint(container: containerIdentifier, environment: environment, database: database, operation: operation)
        let method = operation.httpMethod.rawValue
        let sentBody = operation.httpMethod == .get ? Data() : body
        let path = Self.encodedPath(endpoint.path)
        var base = serverURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        var text = base + path
        if let query = queryString() { text += "?" + query }
        guard let url = URL(string: text) else {
            throw StratusError(.invalidArguments, "cannot form a URL from server URL '\(serverURL)' and path '\(path)'")
        }
        var headers: [HTTPHeaderField] = [HTTPHeaderField("Accept", "application/json")]
        if operation.httpMethod == .post {
            headers.append(HTTPHeaderField("Content-Type", "application/json; charset=utf-8"))
        }
        if case .serverToServer(let keyID, let privateKey) = authentication.scheme {
            let date = ServerToServerSignature.dateString(from: now())
            let signature: String
            do {
                signature = try ServerToServerSignature.signature(
                    date: date, body: sentBody, path: ServerToServerSignature.signedPath(url.absoluteString), key: privateKey)
            } catch {
                throw StratusError(.notAuthenticated, "could not sign the request with key '\(keyID)': \(error)", underlying: error)
            }
            headers.append(HTTPHeaderField(ServerToServerSignature.keyIDHeaderName, keyID))
            headers.append(HTTPHeaderField(ServerToServerSignature.dateHeaderName, date))
            headers.append(HTTPHeaderField(ServerToServerSignature.signatureHeaderName, signature))
        }
        return TransportRequest(method: method, url: url, headers: headers, body: sentBody, timeout: timeout)
    }

    /// `ckAPIToken=…[&ckWebAuthToken=…]`, or `nil` without API-token authentication.
    private func queryString() -> String? {
        guard case .apiToken(let token, let initialWebAuthToken) = authentication.scheme else { return nil }
        var query = "ckAPIToken=" + Self.percentEncodedQueryValue(token)
        if initialWebAuthToken != nil, let webAuth = webAuthToken.current {
            // NB: > Send `&ckWebAuthToken=<token>` on later requests, percent-encoding `+`→`%2B`, `/`→`%2F`, `=`→`%3D`.
            query += "&ckWebAuthToken=" + Self.percentEncodedQueryValue(webAuth)
        }
        return query
    }

    /// Keeps a refreshed web auth token from a response.
    func absorb(_ response: TransportResponse) {
        guard case .apiToken(_, .some) = authentication.scheme, let fresh = response[header: Self.webAuthTokenHeader], !fresh.isEmpty
        else { return }
        webAuthToken.replace(with: fresh)
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters (so `+`, `/` and `=` are encoded).
    static func percentEncodedQueryValue(_ value: String) -> String {
        var result = ""
        for byte in value.utf8 {
            if Self.isUnreserved(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += "%" + Self.hex(byte >> 4) + Self.hex(byte & 0x0F)
            }
        }
        return result
    }

    /// Percent-encodes each path segment (container identifiers are plain, but never trusted).
    static func encodedPath(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false)
            .map { segment in
                var result = ""
                for byte in segment.utf8 {
                    if Self.isUnreserved(byte) {
                        result.unicodeScalars.append(Unicode.Scalar(byte))
                    } else {
                        result += "%" + Self.hex(byte >> 4) + Self.hex(byte & 0x0F)
                    }
                }
                return result
            }
            .joined(separator: "/")
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    private static func hex(_ nibble: UInt8) -> String {
        String(UnicodeScalar(nibble < 10 ? nibble + 48 : nibble + 55))
    }
}
