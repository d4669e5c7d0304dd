public import StratusServer
import Foundation
public import StratusLogging
import StratusCurl
import Synchronization

/// APNs over HTTP/2 through libcurl (with nghttp2): what `stratus serve` delivers pushes with.
///
/// One `CURLM` multi handle, driven by a thread of its own, holds the connections: HTTP/2 is
/// negotiated by ALPN and required (an answer over HTTP/1.1 is an error), concurrent requests to
/// one host are multiplexed as streams of one connection (`CURLPIPE_MULTIPLEX`, `PIPEWAIT`), and
/// connections stay open between pushes. Every request has a deadline, and an answer's body and
/// headers are cut off at ``Configuration/maximumResponseBytes``, so a misbehaving server can
/// neither hold a push forever nor make the server buffer without end. Only `https` is spoken, and
/// redirects are not followed.
///
/// ```swift
/// let transport = try CurlAPNsTransport(configuration: .init(trustedCAFile: "/etc/stratus/proxy-ca.pem"))
/// service.startAPNsDelivery(transport: transport, metrics: metrics)
/// ```
public final class CurlAPNsTransport: APNsTransport {
    /// How the transport connects.
    public struct Configuration: Sendable {
        /// A PEM file of certificate authorities trusted **in addition to** the system's (`--apns-ca-file`),
        /// for a test server or a TLS-inspecting proxy.
        public var trustedCAFile: String?
        /// The most bytes of an answer's body, and of its headers, that are accepted; more fails the request.
        public var maximumResponseBytes = 64 << 10
        /// The deadline of making a connection (TCP and TLS).
        public var connectTimeout: Duration = .seconds(10)
        /// Connections per host; requests beyond its streams wait for one (`CURLMOPT_MAX_HOST_CONNECTIONS`).
        public var maximumConnectionsPerHost = 1
        /// Streams opened at once on one connection (`CURLMOPT_MAX_CONCURRENT_STREAMS`).
        public var maximumConcurrentStreams = 500

        /// Creates a configuration.
        ///
        /// - Parameter trustedCAFile: A PEM file of extra certificate authorities.
        public init(trustedCAFile: String? = nil) {
            self.trustedCAFile = trustedCAFile
        }
    }

    private let settings: CurlSettings
    private let loop: CurlMultiLoop

    /// Starts the transport's thread and multi handle.
    ///
    /// - Parameters:
    ///   - configuration: Trusted CAs, limits.
    ///   - logger: Where connection problems are logged.
    /// - Throws: ``APNsTransportError`` with ``APNsTransportError/Code/invalidRequest`` when the CA
    ///   file cannot be read or holds no certificate, or libcurl cannot start.
    public init(configuration: Configuration = Configuration(), logger: Logger = .disabled) throws(APNsTransportError) {
        do throws(CurlFailure) {
            var settings = CurlSettings()
            settings.protocols = "https"
            settings.requiresHTTP2 = true
            settings.caBundle = try CurlCABundle.make(extraFile: configuration.trustedCAFile)
            settings.maximumBodyBytes = configuration.maximumResponseBytes
            settings.maximumHeaderBytes = configuration.maximumResponseBytes
            settings.connectTimeout = configuration.connectTimeout
            self.settings = settings
            self.loop = try CurlMultiLoop(
                name: "stratus-apns",
                multiplexing: (streams: configuration.maximumConcurrentStreams, connectionsPerHost: configuration.maximumConnectionsPerHost)
            )
        } catch {
            throw APNsTransportError(.invalidRequest, error.message.replacingOccurrences(of: "the CA file", with: "the APNs CA file"))
        }
    }

    /// Sends one request over a (reused) HTTP/2 connection.
    ///
    /// - Throws: ``APNsTransportError`` naming what failed: connection, TLS, timeout, not HTTP/2, too large.
    public func send(_ request: APNsRequest) async throws(APNsTransportError) -> APNsResponse {
        guard let result = await send([request]).first else { throw APNsTransportError(.shutDown, "no answer") }
        return try result.get()
    }

    /// Starts every request at once on the loop (streams of the open connection) and returns each
    /// one's answer or error, in order.
    public func send(_ requests: [APNsRequest]) async -> [Result<APNsResponse, APNsTransportError>] {
        guard !requests.isEmpty else { return [] }
        return await withCheckedContinuation { continuation in
            let collector = CurlResults(count: requests.count, continuation: continuation)
            for (index, request) in requests.enumerated() {
                guard request.url.hasPrefix("https://") else {
                    collector.set(index, .failure(APNsTransportError(.invalidRequest, "APNs is reached over https only; got '\(request.url.prefix(60))'")))
                    continue
                }
                let curlRequest = CurlRequest(method: "POST", url: request.url, headers: request.headers, body: Data(request.body), timeout: request.timeout)
                do throws(CurlFailure) {
                    let transfer = try CurlTransfer(request: curlRequest, settings: settings)
                    transfer.completion = { result in collector.set(index, Self.apns(result)) }
                    loop.submit(transfer)
                } catch {
                    collector.set(index, Self.apns(.failure(error)))
                }
            }
        }
    }

    /// Stops the thread; requests in flight fail with ``APNsTransportError/Code/shutDown``.
    public func shutdown() async {
        await loop.stop()
    }

    deinit {
        loop.stopSoon()
    }

    /// libcurl's outcome in APNs terms: header names lowercased, failures by code.
    private static func apns(_ result: Result<CurlResponse, CurlFailure>) -> Result<APNsResponse, APNsTransportError> {
        result.map { response in
            var headers: [String: String] = [:]
            for (name, value) in response.headers { headers[name.lowercased()] = value }
            return APNsResponse(status: response.status, headers: headers, body: [UInt8](response.body))
        }
        .mapError { failure in
            let code: APNsTransportError.Code
            switch failure.kind {
            case .tooLarge: code = .responseTooLarge
            case .timedOut: code = .timeout
            case .tls: code = .tls
            case .badResponse: code = .protocolViolation
            case .shutDown, .cancelled: code = .shutDown
            case .invalidRequest: code = .invalidRequest
            case .cannotConnect, .connectionLost: code = .connection
            }
            return APNsTransportError(code, failure.message)
        }
    }
}

/// Gathers the results of one batch and resumes its caller when the last one is in.
final class CurlResults: Sendable {
    private struct State {
        var results: [Result<APNsResponse, APNsTransportError>?]
        var missing: Int
        var continuation: CheckedContinuation<[Result<APNsResponse, APNsTransportError>], Never>?
    }

    private let state: Mutex<State>

    init(count: Int, continuation: CheckedContinuation<[Result<APNsResponse, APNsTransportError>], Never>) {
        state = Mutex(State(results: Array(repeating: nil, count: count), missing: count, continuation: continuation))
    }

    /// Records result `index`; the last one resumes the caller.
    func set(_ index: Int, _ result: Result<APNsResponse, APNsTransportError>) {
        let done = state.withLock {
            state -> (CheckedContinuation<[Result<APNsResponse, APNsTransportError>], Never>, [Result<APNsResponse, APNsTransportError>])? in
            guard state.results[index] == nil else { return nil }
            state.results[index] = result
            state.missing -= 1
            guard state.missing == 0, let continuation = state.continuation else { return nil }
            state.continuation = nil
            return (continuation, state.results.map { $0 ?? .failure(APNsTransportError(.shutDown, "no answer")) })
        }
        if let (continuation, results) = done { continuation.resume(returning: results) }
    }
}
