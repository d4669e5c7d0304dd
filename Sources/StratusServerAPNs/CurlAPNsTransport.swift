public import StratusServer
import CCurl
import Foundation
public import StratusLogging
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

    private let configuration: Configuration
    private let caBundle: [UInt8]?
    private let loop: CurlMultiLoop

    /// Starts the transport's thread and multi handle.
    ///
    /// - Parameters:
    ///   - configuration: Trusted CAs, limits.
    ///   - logger: Where connection problems are logged.
    /// - Throws: ``APNsTransportError`` with ``APNsTransportError/Code/invalidRequest`` when the CA
    ///   file cannot be read or holds no certificate, or libcurl cannot start.
    public init(configuration: Configuration = Configuration(), logger: Logger = .disabled) throws(APNsTransportError) {
        CurlGlobal.initialize()
        self.configuration = configuration
        self.caBundle = try CurlCABundle.make(extraFile: configuration.trustedCAFile)
        self.loop = try CurlMultiLoop(
            maximumConnectionsPerHost: configuration.maximumConnectionsPerHost,
            maximumConcurrentStreams: configuration.maximumConcurrentStreams, logger: logger
        )
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
                do throws(APNsTransportError) {
                    let transfer = try CurlTransfer(request: request, configuration: configuration, caBundle: caBundle)
                    transfer.completion = { result in collector.set(index, result) }
                    loop.submit(transfer)
                } catch {
                    collector.set(index, .failure(error))
                }
            }
        }
    }

    /// Stops the thread; requests in flight fail with ``APNsTransportError/Code/shutDown``.
    public func shutdown() async {
        await loop.stop()
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

/// `curl_global_init`, once per process.
enum CurlGlobal {
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    static func initialize() {
        _ = initialized
    }
}

/// The certificate authorities a transport trusts: the system bundle libcurl uses by default
/// plus the operator's file, as one PEM blob (`CURLOPT_CAINFO_BLOB`); `nil` keeps libcurl's default.
enum CurlCABundle {
    static func make(extraFile: String?) throws(APNsTransportError) -> [UInt8]? {
        guard let extraFile else { return nil }
        guard let extra = FileManager.default.contents(atPath: extraFile) else {
            throw APNsTransportError(.invalidRequest, "the APNs CA file \(extraFile) cannot be read")
        }
        guard String(decoding: extra, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw APNsTransportError(.invalidRequest, "the APNs CA file \(extraFile) holds no PEM certificate")
        }
        var bundle: [UInt8] = []
        if let system = systemBundlePath(), let contents = FileManager.default.contents(atPath: system) {
            bundle += contents
            bundle.append(0x0A)
        }
        bundle += extra
        return bundle
    }

    /// The CA bundle file libcurl was built to use (`CURLINFO_CAINFO`), if any.
    private static func systemBundlePath() -> String? {
        guard let easy = curl_easy_init() else { return nil }
        defer { curl_easy_cleanup(easy) }
        var path: UnsafeMutablePointer<CChar>?
        guard stratus_curl_easy_getinfo_string(easy, CURLINFO_CAINFO, &path) == CURLE_OK, let path else { return nil }
        return String(cString: path)
    }
}
