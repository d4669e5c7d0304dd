public import Foundation

/// Sends one HTTP request and returns the response: the SDK's only door to the network.
///
/// ``CurlTransport`` (Linux) and ``URLSessionTransport`` (Apple platforms) are the real ones
/// (``DefaultTransport``); tests and custom stacks plug in others.
///
/// ```swift
/// struct RecordingTransport: HTTPTransport {
///     func send(_ request: TransportRequest) async throws -> TransportResponse {
///         TransportResponse(status: 200, headers: [], body: Data(#"{"zones":[]}"#.utf8))
///     }
/// }
/// ```
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response, whatever its status.
    ///
    /// Implementations must finish by `request.timeout` (throwing `URLError(.timedOut)`) and, when
    /// the calling task is cancelled, stop and throw `CancellationError` or `URLError(.cancelled)`.
    ///
    /// - Parameter request: The request.
    /// - Returns: The response.
    /// - Throws: Transport failures (`URLError`), never for a non-2xx status.
    func send(_ request: TransportRequest) async throws -> TransportResponse
}

/// An HTTP request as the SDK built it.
public struct TransportRequest: Sendable, Hashable {
    /// `GET` or `POST`.
    public var method: String
    /// The full URL, query included.
    public var url: URL
    /// Header fields, in the order they are sent.
    public var headers: [HTTPHeaderField]
    /// The body (empty for `GET`).
    public var body: Data
    /// The total time the request may take, connection and body included.
    public var timeout: Duration
    /// Whether the server may hold the request open until something happens (a web-courier long-poll):
    /// a transport should wait for it without using the processor (``URLSessionTransport`` parks it on a
    /// connection already made).
    public var isLongPoll: Bool

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - method: `GET` or `POST`.
    ///   - url: The full URL.
    ///   - headers: Header fields.
    ///   - body: The body.
    ///   - timeout: The total time the request may take.
    ///   - isLongPoll: Whether the server may hold it open (a long-poll).
    public init(
        method: String, url: URL, headers: [HTTPHeaderField] = [], body: Data = Data(), timeout: Duration = .seconds(60),
        isLongPoll: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.isLongPoll = isLongPoll
    }

    /// The first value of a header, compared case-insensitively.
    ///
    /// - Parameter name: The header name.
    public subscript(header name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// One header field.
public struct HTTPHeaderField: Sendable, Hashable {
    /// The name.
    public var name: String
    /// The value.
    public var value: String

    /// Creates a header field.
    ///
    /// - Parameters:
    ///   - name: The name.
    ///   - value: The value.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// An HTTP response as the transport received it.
public struct TransportResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// Header fields.
    public var headers: [HTTPHeaderField]
    /// The body.
    public var body: Data

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: Header fields.
    ///   - body: The body.
    public init(status: Int, headers: [HTTPHeaderField] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header, compared case-insensitively.
    ///
    /// - Parameter name: The header name.
    public subscript(header name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
