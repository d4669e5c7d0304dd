import Foundation
import StratusCrypto
import StratusHTTP

/// The sign-in forms' defence against cross-site request forgery.
///
/// Every form the server serves (`GET /signin`, `GET /verify`) sets a cookie with 256 random bits,
/// `HttpOnly` and `SameSite=Strict` (and `Secure` over HTTPS), and carries in a hidden field an
/// HMAC-SHA256 of that cookie under a key derived from the server's token secret. A `POST` is
/// accepted only if both come and match: a page on another site can make a browser post a form
/// but can neither read the cookie nor compute the field, and `SameSite=Strict` keeps the browser
/// from sending the cookie with a cross-site post at all.
struct SignInForgeryGuard: Sendable {
    /// The cookie's name.
    static let cookieName = "stratus-signin"
    /// The form field's name.
    static let fieldName = "csrf"
    /// How long a browser keeps the cookie: an hour to fill in a form.
    static let cookieLifetime = 3600

    private let key: Data

    init(secret: Data) {
        key = HMACSHA256.authenticationCode(for: Data("stratus sign-in form v1".utf8), key: secret)
    }

    /// A form's token: the cookie to set (`nil` if the request's own may be kept) and the field's value.
    struct Token {
        var cookie: String?
        var field: String
    }

    /// The token for a form answering `request`: the request's cookie when it has a well-formed one, else a new cookie.
    ///
    /// - Throws: `CryptoError` if the random generator fails.
    func token(for request: HTTPRequest) throws -> Token {
        if let cookie = Self.cookie(in: request), Hex.isLowercaseHex(cookie, count: 64) {
            return Token(cookie: nil, field: field(for: cookie))
        }
        let cookie = try SecureRandom.hexToken()
        return Token(cookie: cookie, field: field(for: cookie))
    }

    /// Whether a form post carries the cookie and the matching field.
    func isGenuine(_ request: HTTPRequest, fields: [String: String]) -> Bool {
        guard let cookie = Self.cookie(in: request), Hex.isLowercaseHex(cookie, count: 64),
            let presented = fields[Self.fieldName], let mac = Data(base64URLEncoded: presented)
        else { return false }
        return HMACSHA256.isValidAuthenticationCode(mac, for: Data(cookie.utf8), key: key)
    }

    /// The `Set-Cookie` value for `cookie`; `secure` over HTTPS.
    static func setCookie(_ cookie: String, secure: Bool) -> String {
        "\(cookieName)=\(cookie); Path=/; Max-Age=\(cookieLifetime); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    private func field(for cookie: String) -> String {
        HMACSHA256.authenticationCode(for: Data(cookie.utf8), key: key).base64URLEncodedString()
    }

    /// The value of this guard's cookie in the request's `Cookie` headers, if any.
    static func cookie(in request: HTTPRequest) -> String? {
        request.cookie(named: cookieName)
    }
}
