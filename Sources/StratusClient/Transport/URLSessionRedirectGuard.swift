#if canImport(FoundationNetworking)
package import Foundation
package import FoundationNetworking
#else
package import Foundation
#endif

/// The session delegate of ``URLSessionTransport``: a request sent over `https` never follows a
/// redirect to plain `http`, where its body and headers (a web auth token, a server-to-server
/// signature) would cross in clear — as ``CurlTransport`` refuses it. Every other redirect is
/// followed as `URLSession` follows it.
///
/// A refused redirect ends the task with the `3xx` answer; ``isRefusedRedirect(of:_:)`` recognizes
/// it, and the transport fails the request with `URLError(.badServerResponse)`.
package final class URLSessionRedirectGuard: NSObject, URLSessionTaskDelegate, Sendable {
    /// Whether a request first sent to `original` may be redirected to `target`.
    ///
    /// - Parameters:
    ///   - original: The URL the request was first sent to (every hop of an `https` request must stay `https`).
    ///   - target: Where the redirect points.
    package static func allows(from original: URL?, to target: URL?) -> Bool {
        guard original?.scheme?.lowercased() == "https" else { return true }
        return target?.scheme?.lowercased() == "https"
    }

    /// Whether `response` to a request first sent to `original` is a redirect this guard refused.
    ///
    /// - Parameters:
    ///   - original: The URL the request was first sent to.
    ///   - response: The answer the task ended with.
    package static func isRefusedRedirect(of original: URL?, _ response: HTTPURLResponse) -> Bool {
        guard (300..<400).contains(response.statusCode), let location = response.value(forHTTPHeaderField: "Location") else { return false }
        return !allows(from: original, to: URL(string: location, relativeTo: response.url ?? original)?.absoluteURL)
    }

    package func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(Self.allows(from: task.originalRequest?.url, to: request.url) ? request : nil)
    }
}
