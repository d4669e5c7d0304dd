package import Foundation

/// How a transport's transfers are made: the same for every request it sends.
///
/// The server's APNs client requires HTTP/2 over `https` and waits to multiplex; the SDK's Linux
/// transport speaks `http` and `https` and follows redirects as `URLSession` does.
package struct CurlSettings: Sendable {
    /// The schemes spoken, as libcurl names them (`CURLOPT_PROTOCOLS_STR`): `"https"` or `"http,https"`.
    package var protocols = "http,https"
    /// Whether the answer must come over HTTP/2 (negotiated by ALPN); a transfer waits to multiplex on
    /// a connection being made (`CURLOPT_PIPEWAIT`).
    package var requiresHTTP2 = false
    /// How many redirects are followed (to `http` or `https` only); 0 follows none.
    package var maximumRedirects = 0
    /// Extra trusted certificate authorities with the system's, as one PEM blob (``CurlCABundle``);
    /// `nil` keeps libcurl's bundle.
    package var caBundle: [UInt8]?
    /// The most bytes of an answer's body that are kept; more fails the transfer.
    package var maximumBodyBytes = 64 << 10
    /// The most bytes of an answer's header lines (status line included, of every answer a redirect
    /// made); more fails the transfer.
    package var maximumHeaderBytes = 64 << 10
    /// The deadline of making a connection (TCP and TLS); `nil` leaves only the request's own.
    package var connectTimeout: Duration?

    /// Creates the settings of a plain HTTP/1.1 client with the default limits.
    package init() {}
}

/// One request as a transport hands it to libcurl.
package struct CurlRequest: Sendable {
    /// `GET`, `POST`, `HEAD` or another method.
    package var method: String
    /// The full URL.
    package var url: String
    /// Header fields, in the order they are sent.
    package var headers: [(name: String, value: String)]
    /// The body; sent unless it is empty and the method is `GET` or `HEAD`.
    package var body: Data
    /// The deadline of the whole exchange.
    package var timeout: Duration

    /// Creates a request.
    package init(method: String, url: String, headers: [(name: String, value: String)], body: Data, timeout: Duration) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// An answer as libcurl received it.
package struct CurlResponse: Sendable {
    /// The HTTP status.
    package var status: Int
    /// The header fields of the last answer (after redirects), in the order received.
    package var headers: [(name: String, value: String)]
    /// The body.
    package var body: Data
}

/// Why a transfer has no answer.
package struct CurlFailure: Error, Sendable, CustomStringConvertible {
    /// What kind of failure.
    package enum Kind: Sendable, Equatable {
        /// The connection could not be made (refused, no such host).
        case cannotConnect
        /// The connection broke, or the server closed it without an answer.
        case connectionLost
        /// TLS failed: the certificate was not trusted, or the handshake failed.
        case tls
        /// No complete answer before the deadline.
        case timedOut
        /// The body or the headers exceeded the limits.
        case tooLarge
        /// The answer was not HTTP (a malformed status line), not HTTP/2 when that is required, or a
        /// redirect loop.
        case badResponse
        /// The caller cancelled the transfer.
        case cancelled
        /// The transport stopped.
        case shutDown
        /// The request could not be made (a header with a line break, an option libcurl refused).
        case invalidRequest
    }

    /// What kind of failure.
    package var kind: Kind
    /// What happened, in libcurl's words where it said something.
    package var message: String

    /// Creates a failure.
    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    package var description: String { message }
}
