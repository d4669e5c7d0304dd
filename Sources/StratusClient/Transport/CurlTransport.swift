#if os(Linux)
import Foundation
import FoundationNetworking
import StratusCurl

/// The ``HTTPTransport`` on Linux: libcurl's multi interface, driven by one thread of its own, without
/// `URLSession` (the default of ``Container`` there; ``DefaultTransport``).
///
/// `URLSession` on Linux is FoundationNetworking over the same libcurl, plus a libdispatch source per
/// socket event and a hop through the session's queues for every request; this transport hands a
/// request to its thread, which sleeps in `curl_multi_poll` on the sockets libcurl wants and resumes
/// the caller when the answer is in. Connections stay open between requests (keep-alive) and are
/// reused; a long-poll parks on its socket without using the processor, on a new connection as on
/// a reused one.
///
/// Every request finishes by its `timeout` (`URLError(.timedOut)`, libcurl's own deadline, which also
/// ends a server that drips its answer); cancelling the calling task stops the transfer and throws
/// `CancellationError`. An answer crosses a trust boundary: a body over
/// ``Configuration/maximumResponseBytes`` or header lines over ``Configuration/maximumHeaderBytes``
/// fail with `URLError(.dataLengthExceedsMaximum)`, a malformed status line with
/// `URLError(.badServerResponse)`. Redirects to `http` or `https` are followed (up to 16), as
/// `URLSession` follows them — except that a request sent over `https` fails with
/// `URLError(.badServerResponse)` rather than follow a redirect to plain `http`, which would send
/// its body and headers (a server-to-server signature) in clear.
///
/// ```swift
/// #if os(Linux)
/// let transport = try CurlTransport(configuration: .init(trustedCAFile: "/etc/myapp/private-ca.pem"))
/// let container = Container(identifier: "iCloud.com.example.App", environment: .development,
///                           serverURL: url, authentication: .none, transport: transport)
/// #endif
/// ```
public final class CurlTransport: HTTPTransport {
    /// Limits and trust.
    public struct Configuration: Sendable {
        /// A PEM file of certificate authorities trusted **in addition to** the system's (a private CA);
        /// `nil` trusts the system's alone (libcurl's bundle, as `URLSession` on Linux).
        public var trustedCAFile: String?
        /// The most bytes of an answer's body accepted; more fails the request. 512 MB by default.
        public var maximumResponseBytes = 512 << 20
        /// The most bytes of an answer's status and header lines accepted; more fails the request.
        public var maximumHeaderBytes = 256 << 10

        /// Creates a configuration.
        ///
        /// - Parameter trustedCAFile: A PEM file of extra certificate authorities.
        public init(trustedCAFile: String? = nil) {
            self.trustedCAFile = trustedCAFile
        }
    }

    private let settings: CurlSettings
    /// `nil` only when libcurl could not start (out of memory): every request then fails.
    private let loop: CurlMultiLoop?

    /// Creates a transport with its own connections, trusting the system's certificate authorities.
    public init() {
        settings = Self.settings(Configuration(), caBundle: nil)
        loop = try? CurlMultiLoop(name: "stratus-curl")
    }

    /// Creates a transport with its own connections.
    ///
    /// - Parameter configuration: Trusted CAs, limits.
    /// - Throws: `URLError(.cannotLoadFromNetwork)` when the CA file cannot be read or holds no
    ///   certificate, or libcurl cannot start.
    public init(configuration: Configuration) throws {
        do throws(CurlFailure) {
            settings = Self.settings(configuration, caBundle: try CurlCABundle.make(extraFile: configuration.trustedCAFile))
            loop = try CurlMultiLoop(name: "stratus-curl")
        } catch {
            throw Self.urlError(error)
        }
    }

    private static func settings(_ configuration: Configuration, caBundle: [UInt8]?) -> CurlSettings {
        var settings = CurlSettings()
        settings.maximumRedirects = 16
        settings.caBundle = caBundle
        settings.maximumBodyBytes = configuration.maximumResponseBytes
        settings.maximumHeaderBytes = configuration.maximumHeaderBytes
        return settings
    }

    deinit {
        loop?.stopSoon()
    }

    /// How many times the transport's thread woke up so far: a test's measure of what a parked
    /// long-poll costs.
    package var wakeups: Int { loop?.wakeups ?? 0 }

    /// Sends `request`, finishing by its timeout.
    ///
    /// - Parameter request: The request.
    /// - Returns: The response, whatever its status.
    /// - Throws: `URLError(.timedOut)` past the deadline, `CancellationError` when cancelled, other
    ///   `URLError`s from the network or for an answer over the limits.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        let request = CurlRequest(
            method: request.method, url: request.url.absoluteString, headers: request.headers.map { ($0.name, $0.value) },
            body: request.body, timeout: request.timeout)
        let transfer: CurlTransfer
        do throws(CurlFailure) {
            transfer = try CurlTransfer(request: request, settings: settings)
        } catch {
            throw Self.urlError(error)
        }
        switch await perform(transfer) {
        case .success(let response):
            return TransportResponse(status: response.status, headers: response.headers.map { HTTPHeaderField($0.name, $0.value) }, body: response.body)
        case .failure(let failure) where failure.kind == .cancelled:
            throw CancellationError()
        case .failure(let failure):
            throw Self.urlError(failure)
        }
    }

    /// Runs `transfer` on the loop; cancelling the calling task takes it back.
    private func perform(_ transfer: CurlTransfer) async -> Result<CurlResponse, CurlFailure> {
        guard let loop else { return .failure(CurlFailure(.invalidRequest, "libcurl could not start")) }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<CurlResponse, CurlFailure>, Never>) in
                transfer.completion = { continuation.resume(returning: $0) }
                loop.submit(transfer)
            }
        } onCancel: {
            loop.cancel(transfer)
        }
    }

    /// The `URLError` a failure stands for, with libcurl's words as its description.
    private static func urlError(_ failure: CurlFailure) -> URLError {
        let code: URLError.Code
        switch failure.kind {
        case .cannotConnect: code = .cannotConnectToHost
        case .connectionLost: code = .networkConnectionLost
        case .tls: code = .secureConnectionFailed
        case .timedOut: code = .timedOut
        case .tooLarge: code = .dataLengthExceedsMaximum
        case .badResponse: code = .badServerResponse
        case .cancelled: code = .cancelled
        case .shutDown, .invalidRequest: code = .cannotLoadFromNetwork
        }
        return URLError(code, userInfo: [NSLocalizedDescriptionKey: failure.message])
    }
}
#endif
