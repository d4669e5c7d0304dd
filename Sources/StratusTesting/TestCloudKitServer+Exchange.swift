public import Foundation
public import StratusWire

/// Requests to the server over raw sockets, for tests that need the exact bytes: chosen query parameters,
/// headers and `Host`, and the reply's status, header fields and body.
///
/// ```swift
/// let reply = try await server.exchange("zones/list", method: "GET", query: ada.query)
/// #expect(reply.status == 200)
/// ```
extension TestCloudKitServer {
    /// What came back from ``exchange(_:method:body:database:query:headers:environment:container:)``.
    public struct Reply: Sendable {
        /// The HTTP status.
        public var status: Int
        /// Header fields by lowercased name (a repeated field's values joined with `, `).
        public var headers: [String: String]
        /// The body.
        public var body: Data

        /// The body parsed as JSON (`null` if it is not JSON).
        public var json: JSONValue { (try? JSONValue(parsing: body)) ?? .null }
        /// The body as text.
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The `serverErrorCode` of an error body.
        public var serverErrorCode: String? {
            if case .object(let object) = json, case .string(let code)? = object["serverErrorCode"] { return code }
            return nil
        }
    }

    /// Sends one request over a fresh socket, with exactly these query parameters (percent-encoded
    /// as RFC 3986 unreserved characters) and headers.
    ///
    /// - Parameters:
    ///   - operation: Such as `records/modify`, or a path starting with `/` for non-database routes.
    ///   - method: `POST` by default.
    ///   - body: The raw body; empty for none.
    ///   - database: `private` by default.
    ///   - query: Query parameters in order.
    ///   - headers: Extra header fields.
    public func exchange(
        _ operation: String, method: String = "POST", body: Data = Data(), database: String = "private",
        query: [(String, String)] = [], headers: [String: String] = [:], environment: String = "development",
        container: String = container
    ) async throws -> Reply {
        var target = operation.hasPrefix("/") ? operation : Self.path(operation, database: database, environment: environment, container: container)
        if !query.isEmpty {
            target += "?" + query.map { "\($0.0)=\(Self.percentEncoded($0.1))" }.joined(separator: "&")
        }
        let request = Self.request(method, target, host: "127.0.0.1:\(http.port)", headers: headers.map { ($0.key, $0.value) }, body: body)
        let reply = try await RawHTTPConnection.exchange(port: http.port, bytes: request)
        return try Reply(reply, of: operation)
    }

    /// ``exchange(_:method:body:database:query:headers:environment:container:)`` with a text body.
    public func exchange(
        _ operation: String, _ body: String, database: String = "private", query: [(String, String)] = [],
        headers: [String: String] = [:], environment: String = "development"
    ) async throws -> Reply {
        try await exchange(operation, body: Data(body.utf8), database: database, query: query, headers: headers, environment: environment)
    }

    /// `/database/1/<container>/<environment>/<database>/<operation>`.
    public static func path(_ operation: String, database: String, environment: String = "development", container: String = container) -> String {
        "/database/1/\(container)/\(environment)/\(database)/\(operation)"
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    public static func percentEncoded(_ value: String) -> String {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }

    /// Sends one request over a fresh socket with exactly this `Host` (none if `nil`) and these
    /// headers, in order — for attacks that forge `Host`, `Origin` or `X-Forwarded-For`.
    ///
    /// - Parameter source: The loopback address to connect from (`127.0.0.2`, …), so the server sees
    ///   another client; 127.0.0.1 when `nil`.
    public func rawExchange(
        _ method: String, _ target: String, host: String?, headers: [(String, String)] = [], body: Data = Data(), from source: String? = nil
    ) async throws -> Reply {
        let request = Self.request(method, target, host: host, headers: headers, body: body)
        let reply =
            if let source {
                try await RawHTTPConnection.exchange(port: http.port, bytes: request, from: source)
            } else {
                try await RawHTTPConnection.exchange(port: http.port, bytes: request)
            }
        return try Reply(reply, of: "\(method) \(target)")
    }

    /// The bytes of one `Connection: close` request: the request line, `Host` (none if `nil`), the
    /// header fields in order, `Content-Length` for a body or a POST, and the body.
    private static func request(_ method: String, _ target: String, host: String?, headers: [(String, String)], body: Data) -> Data {
        var head = "\(method) \(target) HTTP/1.1\r\n"
        if let host { head += "Host: \(host)\r\n" }
        head += "Connection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return Data(head.utf8) + body
    }

    /// Uploads `bytes` as a client does: `assets/upload` for one field, then a POST of the bytes
    /// to the URL it returns; the `singleFile` asset with its receipt, to save in a record.
    ///
    /// ```swift
    /// let asset = try await server.uploadAsset(Data("photo".utf8), recordType: "Photo", fieldName: "image", query: ada.query)
    /// ```
    ///
    /// - Parameters:
    ///   - bytes: The asset's content.
    ///   - recordType: The record type the asset is for.
    ///   - fieldName: The asset field.
    ///   - database: `private` by default.
    ///   - query: The credentials, as query parameters.
    /// - Returns: The asset the upload answered.
    /// - Throws: ``TestServerFailure`` when a step is refused or answers something else.
    public func uploadAsset(
        _ bytes: Data, recordType: String, fieldName: String, database: String = "private", query: [(String, String)]
    ) async throws -> Asset {
        let request = #"{"tokens":[{"recordType":"\#(recordType)","fieldName":"\#(fieldName)"}]}"#
        let reply = try await exchange("assets/upload", request, database: database, query: query)
        guard let text = reply.json["tokens"]?[0]?["url"]?.stringValue, let url = URL(string: text) else {
            throw TestServerFailure(description: "assets/upload answered \(reply.status): \(reply.text)")
        }
        let (status, body) = try await client.send("POST", url, body: bytes)
        guard status == 200 else {
            throw TestServerFailure(description: "the asset upload answered \(String(decoding: body, as: UTF8.self))")
        }
        return try WireCoding.decode(AssetUploadReceipt.self, from: body).singleFile
    }
}

extension TestCloudKitServer.Reply {
    /// Reads the status line and header fields of `reply`; a field sent more than once is joined
    /// with `, ` in the order received (RFC 9110, 5.3), so a test sees every value.
    ///
    /// - Throws: ``TestServerFailure`` naming `request` when no HTTP response came back.
    init(_ reply: RawHTTPConnection.Reply, of request: String) throws {
        guard let status = reply.status else { throw TestServerFailure(description: "\(request): no HTTP response") }
        var fields: [String: String] = [:]
        for line in reply.head.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            fields[name] = fields[name].map { $0 + ", " + value } ?? value
        }
        self.init(status: status, headers: fields, body: Data(reply.body))
    }
}
