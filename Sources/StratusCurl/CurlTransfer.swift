import CCurl
import Foundation
import Synchronization

/// One request on a ``CurlMultiLoop``: its easy handle, its header list and what came back.
///
/// Made on the caller's thread, then touched only by the loop thread (libcurl's callbacks run
/// there) until ``complete(_:)`` hands the result to the waiting caller. A server's answer crosses a
/// trust boundary: its body and header lines are cut off at the settings' limits (the transfer fails
/// with ``CurlFailure/Kind/tooLarge``), so a hostile server cannot make the process buffer without end.
// Safety: after `CurlMultiLoop.submit` the transfer is used by the loop thread alone (`cancelRequested`
// is atomic); the completion is called exactly once, by `complete` or `fail`, and dropped.
package final class CurlTransfer: @unchecked Sendable {
    let easy: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private let settings: CurlSettings
    private let host: String
    private var body = Data()
    private var headers: [(name: String, value: String)] = []
    private var headerBytes = 0
    private var overflowed = false
    private var released = false
    /// Set by ``CurlMultiLoop/cancel(_:)`` from any thread; the loop fails the transfer when it sees it.
    let cancelRequested = Atomic(false)
    /// Called once with the result (on the loop thread, or the submitter's when the loop refused it).
    package var completion: (@Sendable (Result<CurlResponse, CurlFailure>) -> Void)?

    /// Sets up the easy handle for `request`.
    ///
    /// - Throws: ``CurlFailure/Kind/invalidRequest`` when libcurl refuses an option or a header holds a line break.
    package init(request: CurlRequest, settings: CurlSettings) throws(CurlFailure) {
        guard let easy = curl_easy_init() else { throw CurlFailure(.invalidRequest, "curl_easy_init failed") }
        self.easy = easy
        self.settings = settings
        self.host = URLComponents(string: request.url)?.host ?? "the server"
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        do {
            try configure(request)
        } catch {
            release()
            throw error
        }
    }

    deinit {
        release()
        errorBuffer.deallocate()
    }

    private func configure(_ request: CurlRequest) throws(CurlFailure) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        var codes: [CURLcode] = [
            stratus_curl_easy_setopt_string(easy, CURLOPT_URL, request.url),
            stratus_curl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, settings.protocols),
            stratus_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1),
            stratus_curl_easy_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1),
            stratus_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, request.timeout.curlMilliseconds),
            stratus_curl_easy_setopt_off(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(settings.maximumBodyBytes)),
            stratus_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer)),
            stratus_curl_easy_setopt_callback(easy, CURLOPT_WRITEFUNCTION, curlBodyCallback),
            stratus_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context),
            stratus_curl_easy_setopt_callback(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback),
            stratus_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context),
        ]
        if settings.requiresHTTP2 {
            codes += [
                stratus_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)),
                stratus_curl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1),
                stratus_curl_easy_setopt_long(easy, CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2)),
            ]
        }
        if settings.maximumRedirects > 0 {
            codes += [
                stratus_curl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1),
                stratus_curl_easy_setopt_long(easy, CURLOPT_MAXREDIRS, settings.maximumRedirects),
                // An https request never follows a redirect to plain http: its body and headers would cross in clear.
                stratus_curl_easy_setopt_string(
                    easy, CURLOPT_REDIR_PROTOCOLS_STR, request.url.lowercased().hasPrefix("https:") ? "https" : "http,https"),
            ]
        }
        if let connect = settings.connectTimeout {
            codes.append(stratus_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, connect.curlMilliseconds))
        }
        codes += setMethod(request)
        if var bundle = settings.caBundle {
            codes.append(
                bundle.withUnsafeMutableBytes { bytes in
                    var blob = curl_blob(data: bytes.baseAddress, len: bytes.count, flags: UInt32(CURL_BLOB_COPY))
                    return stratus_curl_easy_setopt_blob(easy, CURLOPT_CAINFO_BLOB, &blob)
                })
        }
        // No `Expect: 100-continue`; the rest as given (`Name;` sends a header with an empty value).
        for line in ["Expect:"] + request.headers.map({ $0.value.isEmpty ? "\($0.name);" : "\($0.name): \($0.value)" }) {
            guard !line.contains("\r"), !line.contains("\n"), let list = curl_slist_append(headerList, line) else {
                throw CurlFailure(.invalidRequest, "a request header could not be set (line breaks are not allowed)")
            }
            headerList = list
        }
        codes.append(stratus_curl_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList)))
        if let failed = codes.first(where: { $0 != CURLE_OK }) {
            throw CurlFailure(.invalidRequest, "libcurl refused an option: \(String(cString: curl_easy_strerror(failed)))")
        }
    }

    /// The method's options: `GET`, `HEAD` (no body read), a body for the others (copied by libcurl).
    private func setMethod(_ request: CurlRequest) -> [CURLcode] {
        switch request.method {
        case "GET" where request.body.isEmpty:
            return [stratus_curl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)]
        case "HEAD":
            return [stratus_curl_easy_setopt_long(easy, CURLOPT_NOBODY, 1)]
        default:
            var codes = [
                stratus_curl_easy_setopt_long(easy, CURLOPT_POST, 1),
                stratus_curl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)),
                request.body.withUnsafeBytes { bytes in
                    // NB: libcurl copies `size` bytes from the pointer, none for an empty body; it must not be NULL.
                    stratus_curl_easy_setopt_pointer(
                        easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)))
                },
            ]
            if request.method != "POST" { codes.append(stratus_curl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method)) }
            return codes
        }
    }

    /// Keeps up to the limit of the body; past it the transfer is aborted.
    func receiveBody(_ data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        guard body.count + count <= settings.maximumBodyBytes else {
            overflowed = true
            return 0
        }
        body.append(UnsafeRawBufferPointer(start: data, count: count).assumingMemoryBound(to: UInt8.self))
        return count
    }

    /// Records one header line (`name: value`); a status line starts the headers of a new answer (a
    /// redirect's or an interim `1xx`'s came before), the blank line is skipped.
    func receiveHeader(_ data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        headerBytes += count
        guard headerBytes <= settings.maximumHeaderBytes else {
            overflowed = true
            return 0
        }
        let line = data.withMemoryRebound(to: UInt8.self, capacity: count) { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) }
        if line.hasPrefix("HTTP/") {
            headers.removeAll(keepingCapacity: true)
        } else if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            headers.append((name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        return count
    }

    /// Finishes with libcurl's result: the answer, or the failure it amounts to.
    func complete(_ code: CURLcode) {
        var status = 0
        var version = 0
        _ = stratus_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        _ = stratus_curl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        if code != CURLE_OK {
            finish(.failure(failure(for: code)))
        } else if settings.requiresHTTP2, version != Int(CURL_HTTP_VERSION_2_0) {
            finish(.failure(CurlFailure(.badResponse, "\(host) did not answer over HTTP/2")))
        } else {
            finish(.success(CurlResponse(status: status, headers: headers, body: body)))
        }
    }

    /// Finishes without an answer.
    func fail(_ failure: CurlFailure) {
        finish(.failure(failure))
    }

    private func finish(_ result: Result<CurlResponse, CurlFailure>) {
        release()
        body = Data()
        let completion = self.completion
        self.completion = nil
        completion?(result)
    }

    private func failure(for code: CURLcode) -> CurlFailure {
        let detail = errorBuffer.pointee == 0 ? String(cString: curl_easy_strerror(code)) : String(cString: errorBuffer)
        switch code {
        case CURLE_WRITE_ERROR where overflowed, CURLE_FILESIZE_EXCEEDED:
            return CurlFailure(
                .tooLarge,
                "\(host) answered more than \(headerBytes > settings.maximumHeaderBytes ? "\(settings.maximumHeaderBytes) bytes of headers" : "\(settings.maximumBodyBytes) bytes")"
            )
        case CURLE_OPERATION_TIMEDOUT:
            return CurlFailure(.timedOut, "\(host) did not answer in time: \(detail)")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM:
            return CurlFailure(.tls, "TLS with \(host) failed: \(detail)")
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST:
            return CurlFailure(.cannotConnect, "\(host): \(detail)")
        case CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_WEIRD_SERVER_REPLY, CURLE_UNSUPPORTED_PROTOCOL, CURLE_TOO_MANY_REDIRECTS,
            CURLE_BAD_CONTENT_ENCODING:
            return CurlFailure(.badResponse, "\(host) gave no valid HTTP answer: \(detail)")
        default:
            return CurlFailure(.connectionLost, "\(host): \(detail)")
        }
    }

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
