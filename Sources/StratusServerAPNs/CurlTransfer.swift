import CCurl
import Foundation
import StratusServer

/// One request on the multi loop: its easy handle, its header list and what came back.
///
/// Made on the caller's thread, then touched only by the loop thread (libcurl's callbacks run
/// there) until ``complete(_:)`` hands the result to the waiting caller.
// Safety: after `CurlMultiLoop.submit` the transfer is used by the loop thread alone; the
// completion is called exactly once, by `complete` or `fail`, and dropped.
final class CurlTransfer: @unchecked Sendable {
    let easy: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let limit: Int
    private let host: String
    private var body: [UInt8] = []
    private var headers: [String: String] = [:]
    private var headerBytes = 0
    private var overflowed = false
    /// Called once with the result (on the loop thread, or the submitter's when the loop refused it).
    var completion: (@Sendable (Result<APNsResponse, APNsTransportError>) -> Void)?

    /// Sets up the easy handle for `request`.
    init(request: APNsRequest, configuration: CurlAPNsTransport.Configuration, caBundle: [UInt8]?) throws(APNsTransportError) {
        guard request.url.hasPrefix("https://") else {
            throw APNsTransportError(.invalidRequest, "APNs is reached over https only; got '\(request.url.prefix(60))'")
        }
        guard let easy = curl_easy_init() else { throw APNsTransportError(.invalidRequest, "curl_easy_init failed") }
        self.easy = easy
        self.limit = configuration.maximumResponseBytes
        self.host = URLComponents(string: request.url)?.host ?? "the APNs host"
        do {
            try configure(request, configuration: configuration, caBundle: caBundle)
        } catch {
            release()
            throw error
        }
    }

    private func configure(_ request: APNsRequest, configuration: CurlAPNsTransport.Configuration, caBundle: [UInt8]?) throws(APNsTransportError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        var codes: [CURLcode] = [
            stratus_curl_easy_setopt_string(easy, CURLOPT_URL, request.url),
            stratus_curl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "https"),
            stratus_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)),
            stratus_curl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1),
            stratus_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1),
            stratus_curl_easy_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1),
            stratus_curl_easy_setopt_long(easy, CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2)),
            stratus_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, request.timeout.curlMilliseconds),
            stratus_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.curlMilliseconds),
            stratus_curl_easy_setopt_long(easy, CURLOPT_POST, 1),
            stratus_curl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)),
            request.body.withUnsafeBytes { bytes in
                stratus_curl_easy_setopt_pointer(
                    easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)))
            },
            stratus_curl_easy_setopt_callback(easy, CURLOPT_WRITEFUNCTION, curlBodyCallback),
            stratus_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context),
            stratus_curl_easy_setopt_callback(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback),
            stratus_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context),
        ]
        if var bundle = caBundle {
            codes.append(
                bundle.withUnsafeMutableBytes { bytes in
                    var blob = curl_blob(data: bytes.baseAddress, len: bytes.count, flags: UInt32(CURL_BLOB_COPY))
                    return stratus_curl_easy_setopt_blob(easy, CURLOPT_CAINFO_BLOB, &blob)
                })
        }
        // No `Expect: 100-continue`; the rest as given.
        for line in ["Expect:"] + request.headers.map({ "\($0.name): \($0.value)" }) {
            guard !line.contains("\r"), !line.contains("\n"), let list = curl_slist_append(headerList, line) else {
                throw APNsTransportError(.invalidRequest, "a request header could not be set")
            }
            headerList = list
        }
        codes.append(stratus_curl_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList)))
        if let failed = codes.first(where: { $0 != CURLE_OK }) {
            throw APNsTransportError(.invalidRequest, "libcurl refused an option: \(String(cString: curl_easy_strerror(failed)))")
        }
    }

    /// Keeps up to the limit of the body; past it the transfer is aborted.
    func receiveBody(_ data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        guard body.count + count <= limit else {
            overflowed = true
            return 0
        }
        data.withMemoryRebound(to: UInt8.self, capacity: count) { body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count)) }
        return count
    }

    /// Records one header line (`name: value`); the status line and the blank line are skipped.
    func receiveHeader(_ data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        headerBytes += count
        guard headerBytes <= limit else {
            overflowed = true
            return 0
        }
        let line = data.withMemoryRebound(to: UInt8.self, capacity: count) { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) }
        if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return count
    }

    /// Finishes with libcurl's result: the answer, or the error it amounts to.
    func complete(_ code: CURLcode) {
        var status = 0
        var version = 0
        _ = stratus_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        _ = stratus_curl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        let result: Result<APNsResponse, APNsTransportError>
        if code != CURLE_OK {
            result = .failure(error(for: code))
        } else if version != Int(CURL_HTTP_VERSION_2_0) {
            result = .failure(APNsTransportError(.protocolViolation, "\(host) did not answer over HTTP/2"))
        } else {
            result = .success(APNsResponse(status: status, headers: headers, body: body))
        }
        finish(result)
    }

    /// Finishes without an answer.
    func fail(_ error: APNsTransportError) {
        finish(.failure(error))
    }

    private func finish(_ result: Result<APNsResponse, APNsTransportError>) {
        release()
        let completion = self.completion
        self.completion = nil
        completion?(result)
    }

    private func error(for code: CURLcode) -> APNsTransportError {
        let text = String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_WRITE_ERROR where overflowed:
            return APNsTransportError(.responseTooLarge, "\(host) answered more than \(limit) bytes")
        case CURLE_OPERATION_TIMEDOUT:
            return APNsTransportError(.timeout, "\(host) did not answer in time")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM:
            return APNsTransportError(.tls, "TLS with \(host) failed: \(text)")
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING:
            return APNsTransportError(.connection, "\(host): \(text)")
        case CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_WEIRD_SERVER_REPLY:
            return APNsTransportError(.protocolViolation, "\(host): \(text)")
        default:
            return APNsTransportError(.connection, "\(host): \(text)")
        }
    }

    private var released = false

    private func release() {
        guard !released else { return }
        released = true
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        headerList = nil
    }
}

/// libcurl's body callback: hands the bytes to the transfer named by the context pointer.
let curlBodyCallback: stratus_curl_data_callback = { data, size, count, context in
    guard let data, let context else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().receiveBody(data, size * count)
}

/// libcurl's header callback.
let curlHeaderCallback: stratus_curl_data_callback = { data, size, count, context in
    guard let data, let context else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().receiveHeader(data, size * count)
}

extension Duration {
    /// Whole milliseconds, at least 1 (libcurl reads 0 as "no deadline").
    fileprivate var curlMilliseconds: Int {
        let (seconds, attoseconds) = components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
