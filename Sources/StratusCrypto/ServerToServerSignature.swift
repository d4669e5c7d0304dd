public import Foundation

/// Signs and verifies CloudKit server-to-server requests (Apple's CloudKit Web Services Reference: “Server-to-server keys”).
///
/// A signed request carries three headers: the key ID, an ISO 8601 date, and
/// a base64 ECDSA P-256/SHA-256 DER signature over
///
/// ```text
/// <date>:<base64(SHA-256(body))>:<URL path>
/// ```
///
/// where the body hash is the **empty string** for a body-less request and
/// the path has no scheme, host or query.
///
/// Client side:
///
/// ```swift
/// import Foundation
/// import StratusCrypto
///
/// func signatureHeaders(body: Data, key: P256PrivateKey) throws -> [String: String] {
///     let date = ServerToServerSignature.dateString(from: Date())
///     let signature = try ServerToServerSignature.signature(
///         date: date, body: body, path: "/database/1/iCloud.com.example/development/public/records/query", key: key)
///     return [ServerToServerSignature.dateHeaderName: date, ServerToServerSignature.signatureHeaderName: signature]
/// }
/// ```
///
/// The server checks the date with ``isDateAcceptable(_:now:tolerance:)`` and the signature with
/// `isValidSignature(_:date:body:path:publicKey:)`, which `StratusServerCrypto` adds (a client
/// never verifies, so its graph holds no verification code).
///
/// (Named after the feature, not `CloudKit…`, so it cannot clash with Apple's framework.)
///
/// CloudKit reference: https://developer.apple.com/library/archive/documentation/DataManagement/Conceptual/CloudKitWebServicesReference/SettingUpWebServices.html
public enum ServerToServerSignature {
    /// The header that names the registered key: `X-Apple-CloudKit-Request-KeyID`.
    public static let keyIDHeaderName = "X-Apple-CloudKit-Request-KeyID"
    /// The header that carries the signed date: `X-Apple-CloudKit-Request-ISO8601Date`.
    public static let dateHeaderName = "X-Apple-CloudKit-Request-ISO8601Date"
    /// The header that carries the base64 DER signature: `X-Apple-CloudKit-Request-SignatureV1`.
    public static let signatureHeaderName = "X-Apple-CloudKit-Request-SignatureV1"

    /// The body-hash field of the signed message: base64 of SHA-256 of the body, or `""` for an empty body.
    ///
    /// ```swift
    /// ServerToServerSignature.bodyHash(for: Data())            // ""
    /// ServerToServerSignature.bodyHash(for: Data("{}".utf8))   // "RBNvo1WzZ4oRRq0W9+hknpT7T8If536DEMBg9hyq/4o="
    /// ```
    ///
    /// - Parameter body: The raw request body bytes.
    /// - Returns: The field's text.
    public static func bodyHash(for body: Data) -> String {
        // NB: > Body-less requests (GET): the body-hash component is the **empty string**,
        // > not the hash of an empty body.
        body.isEmpty ? "" : SHA256.hash(body).base64
    }

    /// Reduces a request target or URL to the path that is signed: no scheme, host, query or fragment.
    ///
    /// ```swift
    /// ServerToServerSignature.signedPath("/database/1/c/development/public/records/query?ckAPIToken=x")
    /// // "/database/1/c/development/public/records/query"
    /// ServerToServerSignature.signedPath("https://api.apple-cloudkit.com/database/1/c/development/public/zones/list")
    /// // "/database/1/c/development/public/zones/list"
    /// ```
    ///
    /// Percent-escapes are kept as written: sign and verify the path exactly as it goes on the wire.
    ///
    /// - Parameter target: A path (`/database/…`), a request target with a query, or an absolute URL.
    /// - Returns: The path alone.
    public static func signedPath(_ target: String) -> String {
        // The common case, a bare path, without searching for a scheme.
        if target.utf8.first == UInt8(ascii: "/"), !containsQueryOrFragment(target) {
            return target
        }
        var path = Substring(target)
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            path = path[..<end]
        }
        if let schemeEnd = path.range(of: "://") {
            let afterScheme = path[schemeEnd.upperBound...]
            path = afterScheme.firstIndex(of: "/").map { afterScheme[$0...] } ?? "/"
        }
        return String(path)
    }

    /// Whether `text` has a `?` or a `#`; a tight loop over a native string's bytes (the verifier's hot path).
    private static func containsQueryOrFragment(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            for byte in bytes where byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { return true }
            return false
        }
    }

    /// Builds the text that is signed: `<date>:<body hash>:<path>`.
    ///
    /// - Parameters:
    ///   - date: The exact `X-Apple-CloudKit-Request-ISO8601Date` header value.
    ///   - body: The raw request body; empty for a body-less request.
    ///   - path: The request path; a query or scheme and host are removed with ``signedPath(_:)``.
    /// - Returns: The message, signed as its UTF-8 bytes.
    public static func message(date: String, body: Data, path: String) -> String {
        message(date: date, bodyHash: bodyHash(for: body), path: path)
    }

    /// The signed text with the body hash given: `<date>:<bodyHash>:<path>`.
    package static func message(date: String, bodyHash: String, path: String) -> String {
        "\(date):\(bodyHash):\(signedPath(path))"
    }

    /// Signs a request and returns the `X-Apple-CloudKit-Request-SignatureV1` header value.
    ///
    /// - Parameters:
    ///   - date: The exact date header value, usually from ``dateString(from:)``.
    ///   - body: The raw request body; empty for a body-less request.
    ///   - path: The request path (a query is removed).
    ///   - key: The server-to-server private key.
    /// - Returns: The base64-encoded DER signature.
    /// - Throws: ``CryptoError`` with ``CryptoError/Code/signingFailed`` if OpenSSL fails.
    public static func signature(date: String, body: Data, path: String, key: P256PrivateKey) throws -> String {
        let text = message(date: date, body: body, path: path)
        return try key.signature(for: Data(text.utf8)).base64EncodedString()
    }

    /// Returns the three headers of a signed request.
    ///
    /// ```swift
    /// import Foundation
    /// import StratusCrypto
    ///
    /// func printHeaders(keyID: String, body: Data, path: String, key: P256PrivateKey) throws {
    ///     for (name, value) in try ServerToServerSignature.headers(
    ///         keyID: keyID, date: Date(), body: body, path: path, key: key) {
    ///         print("\(name): \(value)")  // set each on the request
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - keyID: The key ID the dashboard issued.
    ///   - date: The signing time; formatted with ``dateString(from:)``.
    ///   - body: The raw request body; empty for a body-less request.
    ///   - path: The request path (a query is removed).
    ///   - key: The server-to-server private key.
    /// - Returns: Header names mapped to values.
    /// - Throws: ``CryptoError`` with ``CryptoError/Code/signingFailed`` if OpenSSL fails.
    public static func headers(
        keyID: String,
        date: Date,
        body: Data,
        path: String,
        key: P256PrivateKey
    ) throws -> [String: String] {
        let dateText = dateString(from: date)
        return [
            keyIDHeaderName: keyID,
            dateHeaderName: dateText,
            signatureHeaderName: try signature(date: dateText, body: body, path: path, key: key),
        ]
    }
}
