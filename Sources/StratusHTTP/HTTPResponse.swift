public import Foundation

/// One HTTP response with its whole body.
///
/// ```swift
/// let response = try HTTPResponse.json(["status": "ok"])
/// ```
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: HTTPStatus
    /// The header fields; the transport adds `Content-Length` and `Date` itself.
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: Data

    /// Creates a response.
    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose body is `value` encoded as JSON.
    ///
    /// - Parameters:
    ///   - value: What to encode.
    ///   - status: 200 by default.
    ///   - encoder: The encoder; sorted keys and unescaped slashes when omitted.
    /// - Throws: What the encoder throws.
    public static func json(
        _ value: some Encodable, status: HTTPStatus = .ok, encoder: JSONEncoder = HTTPResponse.defaultEncoder
    ) throws -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json; charset=utf-8"], body: try encoder.encode(value))
    }

    /// A response whose body is already-encoded JSON.
    public static func json(bytes: Data, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json; charset=utf-8"], body: bytes)
    }

    /// A plain-text response.
    public static func text(_ text: String, status: HTTPStatus = .ok, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Data(text.utf8))
    }

    /// The JSON encoder responses use unless told otherwise: sorted keys, slashes unescaped.
    public static var defaultEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
