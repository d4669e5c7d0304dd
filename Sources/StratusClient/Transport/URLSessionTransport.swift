#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

/// The ``HTTPTransport`` over `URLSession` (libcurl on Linux), with a deadline of its own.
///
/// `URLSessionConfiguration.timeoutIntervalForResource` is not enforced on Linux, and
/// `timeoutInterval` is only an idle timeout, so each request runs in a child task raced against
/// a timer; whichever finishes first cancels the other. Cancelling the calling task cancels the
/// data task and throws `CancellationError`.
///
/// ```swift
/// let transport = URLSessionTransport()
/// let container = Container(identifier: "iCloud.com.example.App", environment: .development,
///                           serverURL: url, authentication: .none, transport: transport)
/// ```
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// Creates a transport with its own session (its own connection pool).
    ///
    /// - Parameter configuration: The session configuration; ephemeral (no cookies, no cache) by default.
    public init(configuration: URLSessionConfiguration = .ephemeral) {
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        self.session = URLSession(configuration: configuration)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends `request`, finishing by its timeout.
    ///
    /// - Parameter request: The request.
    /// - Returns: The response.
    /// - Throws: `URLError(.timedOut)` past the deadline, `CancellationError` when cancelled,
    ///   other `URLError`s from the network.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for field in request.headers {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        if !request.body.isEmpty || request.method != "GET" {
            urlRequest.httpBody = request.body
        }
        // NB: libcurl's idle timeout works in whole seconds (0.3 s times out at once), so it is set
        // past our deadline, which is the one that fires.
        urlRequest.timeoutInterval = request.timeout.seconds.rounded(.up) + 1
        let session = self.session
        let prepared = urlRequest
        do {
            return try await withThrowingTaskGroup(of: TransportResponse?.self) { group in
                group.addTask {
                    let (data, response) = try await session.data(for: prepared)
                    return Self.response(data, response)
                }
                group.addTask {
                    try await Task.sleep(for: request.timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next() else { throw CancellationError() }
                guard let response = first else { throw URLError(.timedOut) }
                return response
            }
        } catch let error as URLError where error.code == .cancelled || Task.isCancelled {
            throw CancellationError()
        } catch is CancellationError {
            throw CancellationError()
        }
    }

    private static func response(_ data: Data, _ response: URLResponse) -> TransportResponse {
        guard let http = response as? HTTPURLResponse else {
            return TransportResponse(status: 0, body: data)
        }
        var headers: [HTTPHeaderField] = []
        for (name, value) in http.allHeaderFields {
            headers.append(HTTPHeaderField("\(name)", "\(value)"))
        }
        return TransportResponse(status: http.statusCode, headers: headers, body: data)
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
