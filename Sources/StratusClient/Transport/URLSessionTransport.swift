import Dispatch
import Synchronization

#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

/// The ``HTTPTransport`` over `URLSession` (libcurl on Linux), with a deadline of its own.
///
/// `URLSessionConfiguration.timeoutIntervalForResource` is not enforced on Linux, and
/// `timeoutInterval` is only an idle timeout, so each request races a dispatch timer: whichever
/// finishes first wins and the data task is cancelled. Cancelling the calling task cancels the
/// data task and throws `CancellationError` at once, without waiting for libcurl to wind down.
///
/// **Long-polls wait on a connection that is already open.** On Linux, URLSession keeps watching a new
/// connection for writability after libcurl has sent the request (it asked for that while connecting
/// and never takes it back until the transfer ends): a parked long-poll on a new connection spins a core
/// for as long as the server holds it (83–93 % measured for an idle `stratus docs sync`). A request on a
/// reused connection is watched for reading only. So before a ``TransportRequest/isLongPoll`` request to
/// a server this transport has no open connection to, it sends a `HEAD /` there (its answer is ignored)
/// and the long-poll reuses that connection; later polls reuse the previous poll's.
///
/// ```swift
/// let transport = URLSessionTransport()
/// let container = Container(identifier: "iCloud.com.example.App", environment: .development,
///                           serverURL: url, authentication: .none, transport: transport)
/// ```
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    /// Servers (`scheme://host:port/`) this transport last reached on a connection it can reuse.
    private let connected = Mutex<Set<String>>([])

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
        guard request.isLongPoll, let origin = Self.origin(of: request.url) else { return try await perform(request) }
        if !connected.withLock({ $0.contains(origin.absoluteString) }) {
            // Open the connection with a request that ends, so the long-poll parks on a reused one.
            let warmUp = TransportRequest(method: "HEAD", url: origin, timeout: min(request.timeout, .seconds(10)))
            _ = try? await perform(warmUp)
        }
        do {
            let response = try await perform(request)
            let reusable = response[header: "Connection"]?.lowercased() != "close"
            connected.withLock { servers in
                if reusable { servers.insert(origin.absoluteString) } else { servers.remove(origin.absoluteString) }
            }
            return response
        } catch {
            _ = connected.withLock { $0.remove(origin.absoluteString) }
            throw error
        }
    }

    /// `scheme://host:port/` of a URL.
    private static func origin(of url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.host != nil else { return nil }
        components.path = "/"
        components.query = nil
        components.fragment = nil
        return components.url
    }

    private func perform(_ request: TransportRequest) async throws -> TransportResponse {
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
        let call = PendingCall()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<TransportResponse, any Error>) in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    if let error {
                        let cancelled = (error as? URLError)?.code == .cancelled
                        call.finish(continuation, with: .failure(cancelled ? CancellationError() : error))
                    } else if let response {
                        call.finish(continuation, with: .success(Self.response(data ?? Data(), response)))
                    } else {
                        call.finish(continuation, with: .failure(URLError(.badServerResponse)))
                    }
                }
                call.start(task, continuation: continuation)
                // NB: the deadline runs on a dispatch timer, not a Swift task, so it fires on time
                // even when the cooperative thread pool is busy.
                DispatchQueue.global().asyncAfter(deadline: .now() + request.timeout.seconds) {
                    call.finish(continuation, with: .failure(URLError(.timedOut)))
                }
                task.resume()
            }
        } onCancel: {
            call.cancel()
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

/// One in-flight data task and the continuation waiting for it; the first outcome wins.
private final class PendingCall: Sendable {
    private struct State {
        var task: URLSessionDataTask?
        var continuation: CheckedContinuation<TransportResponse, any Error>?
        var cancelledEarly = false
        var finished = false
    }

    private let state = Mutex(State())

    /// Records the task; if the caller was cancelled already, fails at once.
    func start(_ task: URLSessionDataTask, continuation: CheckedContinuation<TransportResponse, any Error>) {
        let cancelledEarly = state.withLock { state in
            state.task = task
            state.continuation = continuation
            return state.cancelledEarly
        }
        if cancelledEarly { finish(continuation, with: .failure(CancellationError())) }
    }

    /// Resumes the caller with `result` unless an earlier outcome did; cancels the task when it loses.
    func finish(_ continuation: CheckedContinuation<TransportResponse, any Error>, with result: Result<TransportResponse, any Error>) {
        let (won, task) = state.withLock { state -> (Bool, URLSessionDataTask?) in
            guard !state.finished else { return (false, nil) }
            state.finished = true
            return (true, state.task)
        }
        guard won else { return }
        if case .failure = result { task?.cancel() }
        continuation.resume(with: result)
    }

    /// Cancels the call from the caller's cancellation handler.
    func cancel() {
        let continuation = state.withLock { state -> CheckedContinuation<TransportResponse, any Error>? in
            if state.continuation == nil { state.cancelledEarly = true }
            return state.continuation
        }
        if let continuation { finish(continuation, with: .failure(CancellationError())) }
    }
}
