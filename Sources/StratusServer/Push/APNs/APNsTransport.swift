/// Sends one HTTP/2 request to APNs and returns its answer: what the delivery needs of an HTTP client.
///
/// `stratus serve` composes in `CurlAPNsTransport` (module `StratusServerAPNs`: libcurl with
/// nghttp2, connections kept open and multiplexed); tests may script one.
///
/// ```swift
/// let request = APNsRequest(url: "https://api.push.apple.com/3/device/\(deviceToken)", headers: headers, body: body, timeout: .seconds(10))
/// let response = try await transport.send(request)
/// ```
public protocol APNsTransport: Sendable {
    /// Sends `request` and returns the answer, whatever its status.
    ///
    /// - Throws: ``APNsTransportError`` when there is no answer: no connection, TLS refused, the
    ///   deadline passed, the answer was not HTTP/2 or larger than the transport accepts.
    func send(_ request: APNsRequest) async throws(APNsTransportError) -> APNsResponse

    /// Sends every request at once and returns each one's answer or error, in order.
    ///
    /// The default sends them concurrently with ``send(_:)``; a transport may start them all
    /// together without a task each.
    func send(_ requests: [APNsRequest]) async -> [Result<APNsResponse, APNsTransportError>]

    /// Closes connections; requests in flight fail, and no request may follow.
    func shutdown() async
}

extension APNsTransport {
    /// Sends the requests concurrently, one task each.
    public func send(_ requests: [APNsRequest]) async -> [Result<APNsResponse, APNsTransportError>] {
        await withTaskGroup(of: (Int, Result<APNsResponse, APNsTransportError>).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask {
                    do throws(APNsTransportError) {
                        return (index, .success(try await send(request)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var results = [Result<APNsResponse, APNsTransportError>](
                repeating: .failure(APNsTransportError(.shutDown, "not sent")), count: requests.count
            )
            for await (index, result) in group { results[index] = result }
            return results
        }
    }
}

/// One request to the provider API: `POST /3/device/<token>`.
public struct APNsRequest: Sendable {
    /// The full URL.
    public var url: String
    /// Header names (lowercase) and values, in order.
    public var headers: [(name: String, value: String)]
    /// The JSON payload.
    public var body: [UInt8]
    /// The deadline of the whole exchange.
    public var timeout: Duration

    /// Creates a request.
    public init(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) {
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// The value of header `name`, if present.
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }
}

/// The provider API's answer.
public struct APNsResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// Header values by lowercase name.
    public var headers: [String: String]
    /// The body (at most what the transport accepts).
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A request to APNs that got no usable answer.
public struct APNsTransportError: Error, Hashable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: RawRepresentable, Hashable, Sendable {
        /// The name.
        public var rawValue: String
        /// Creates a code.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The connection could not be made or broke.
        public static let connection = Code(rawValue: "connection")
        /// TLS failed: the server's certificate was not trusted, or the handshake failed.
        public static let tls = Code(rawValue: "tls")
        /// No answer before the deadline.
        public static let timeout = Code(rawValue: "timeout")
        /// The answer was not HTTP/2, or was malformed.
        public static let protocolViolation = Code(rawValue: "protocolViolation")
        /// The answer's body or headers exceeded what the transport accepts.
        public static let responseTooLarge = Code(rawValue: "responseTooLarge")
        /// The transport was shut down.
        public static let shutDown = Code(rawValue: "shutDown")
        /// The request could not be made (a bad URL, an option the library refused).
        public static let invalidRequest = Code(rawValue: "invalidRequest")
    }

    /// What kind of failure.
    public var code: Code
    /// What happened, naming the host or the library's error.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}
