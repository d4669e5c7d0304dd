import CCurl
import Foundation

/// `curl_global_init`, once per process.
package enum CurlGlobal {
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// Initializes libcurl if nothing in the process has yet.
    package static func initialize() {
        _ = initialized
    }
}

/// The certificate authorities a transport trusts: the system bundle libcurl uses by default
/// plus an operator's or a test's file, as one PEM blob (`CURLOPT_CAINFO_BLOB`); `nil` keeps libcurl's default.
package enum CurlCABundle {
    /// The system bundle followed by `extraFile`'s certificates; `nil` without a file.
    ///
    /// - Throws: ``CurlFailure/Kind/invalidRequest`` when the file cannot be read or holds no PEM certificate.
    package static func make(extraFile: String?) throws(CurlFailure) -> [UInt8]? {
        guard let extraFile else { return nil }
        guard let extra = FileManager.default.contents(atPath: extraFile) else {
            throw CurlFailure(.invalidRequest, "the CA file \(extraFile) cannot be read")
        }
        guard String(decoding: extra, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw CurlFailure(.invalidRequest, "the CA file \(extraFile) holds no PEM certificate")
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
        CurlGlobal.initialize()
        guard let easy = curl_easy_init() else { return nil }
        defer { curl_easy_cleanup(easy) }
        var path: UnsafeMutablePointer<CChar>?
        guard stratus_curl_easy_getinfo_string(easy, CURLINFO_CAINFO, &path) == CURLE_OK, let path else { return nil }
        return String(cString: path)
    }
}
