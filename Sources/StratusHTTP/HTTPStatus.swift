/// An HTTP status code with its reason phrase.
public struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    /// The numeric code, such as 404.
    public let code: Int

    /// Wraps a numeric status code.
    public init(code: Int) { self.code = code }

    /// 200 OK
    public static let ok = HTTPStatus(code: 200)
    /// 204 No Content
    public static let noContent = HTTPStatus(code: 204)
    /// 400 Bad Request
    public static let badRequest = HTTPStatus(code: 400)
    /// 401 Unauthorized
    public static let unauthorized = HTTPStatus(code: 401)
    /// 403 Forbidden
    public static let forbidden = HTTPStatus(code: 403)
    /// 404 Not Found
    public static let notFound = HTTPStatus(code: 404)
    /// 405 Method Not Allowed
    public static let methodNotAllowed = HTTPStatus(code: 405)
    /// 409 Conflict
    public static let conflict = HTTPStatus(code: 409)
    /// 412 Precondition Failed
    public static let preconditionFailed = HTTPStatus(code: 412)
    /// 413 Content Too Large
    public static let contentTooLarge = HTTPStatus(code: 413)
    /// 421 Misdirected Request (CloudKit's "authentication required")
    public static let misdirectedRequest = HTTPStatus(code: 421)
    /// 429 Too Many Requests
    public static let tooManyRequests = HTTPStatus(code: 429)
    /// 500 Internal Server Error
    public static let internalServerError = HTTPStatus(code: 500)
    /// 503 Service Unavailable
    public static let serviceUnavailable = HTTPStatus(code: 503)

    /// `true` for 2xx codes.
    public var isSuccess: Bool { (200..<300).contains(code) }

    /// The code followed by its reason phrase, such as `404 Not Found`.
    public var description: String { "\(code) \(reasonPhrase)" }

    /// The standard reason phrase for the code.
    public var reasonPhrase: String {
        switch code {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 421: "Misdirected Request"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status \(code)"
        }
    }
}
