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
/// **An `https` request never follows a redirect to plain `http`** (its body and headers would cross
/// in clear): it fails with `URLError(.badServerResponse)`, as ``CurlTransport``'s does. Other
/// redirects are followed as `URLSession` follows them.
///
/// **No URLSession call runs on the caller's thread.** On Linux, `URLSessionTask.resume()` and
/// `cancel()` wait (`DispatchQueue.sync`) for the session's work queue, which is busy for as long as
/// libcurl is handling the session's other transfers. Called from a task, that wait blocks a thread
/// of Swift's cooperative pool — there are as many as cores — and with a few requests starting at
/// once every task of the process stalls behind one session (seen: both threads of a two-core pool
/// blocked in `resume()`). So the transport makes, starts and cancels its data tasks on a serial
/// queue of its own, and the caller only awaits the outcome.
///
/// ```swift
/// let transport = URLSessionTransport()
/// let container = Container(identifier: "iCloud.com.example.App", environment: .development,
///                           serverURL: url, authentication: .none, transport: transport)
/// ```
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    /// Where data tasks are made, started and cancelled: never on the caller's thread.
    private let queue = DispatchQueue(label: "stratus.url-session-transport")
    /// Servers (`scheme://host:port/`) this transport last reached on a connection it can reuse.
    private let connected = Mutex<Set<String>>([])

    /// Creates a transport with its own session (its own connection pool).
    ///
    /// - Parameter configuration: The session configuration; ephemeral (no cookies, no cache) by default.
    public init(configuration: URLSessionConfiguration = .ephemeral) {
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        self.session = URLSession(configuration: configuration, delegate: URLSessionRedirectGuard(), delegateQueue: nil)
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
        let call = PendingCall(queue: queue)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<TransportResponse, any Error>) in
                call.wait(with: continuation)
                // NB: the deadline runs on a dispatch timer, not a Swift task, so it fires on time
                // even when the cooperative thread pool is busy.
                DispatchQueue.global().asyncAfter(deadline: .now() + request.timeout.seconds) {
                    call.finish(with: .failure(URLError(.timedOut)))
                }
                // NB: the block holds the transport: the call may be over (cancelled, past its
                // deadline) and its caller gone before the block runs, and the last release of
                // the transport invalidates the session, where making a task is a fatal error.
                queue.async { [self, urlRequest] in
                    guard !call.isOver else { return }
                    let task = session.dataTask(with: urlRequest) { data, response, error in
                        if let error {
                            let cancelled = (error as? URLError)?.code == .cancelled
                            call.finish(with: .failure(cancelled ? CancellationError() : error))
                        } else if let response = response as? HTTPURLResponse, URLSessionRedirectGuard.isRefusedRedirect(of: urlRequest.url, response) {
                            call.finish(with: .failure(URLError(.badServerResponse)))
                        } else if let response {
                            call.finish(with: .success(Self.response(data ?? Data(), response)))
                        } else {
                            call.finish(with: .failure(URLError(.badServerResponse)))
                        }
                    }
                    if call.start(task) { task.resume() }
                }
            }
        } onCancel: {
            call.finish(with: .failure(CancellationError()))
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
///
/// The outcome may come before the task exists (cancelled or past the deadline while the transport's
/// queue had not made it yet): the task is then never started.
private final class PendingCall: Sendable {
    private struct State {
        var task: URLSessionDataTask?
        var continuation: CheckedContinuation<TransportResponse, any Error>?
        var outcome: Result<TransportResponse, any Error>?
    }

    private let state = Mutex(State())
    /// The transport's queue, where a losing task is cancelled.
    private let queue: DispatchQueue

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Hands over the caller's continuation; resumes it at once if the outcome is in already.
    func wait(with continuation: CheckedContinuation<TransportResponse, any Error>) {
        let outcome = state.withLock { state -> Result<TransportResponse, any Error>? in
            if state.outcome == nil { state.continuation = continuation }
            return state.outcome
        }
        if let outcome { continuation.resume(with: outcome) }
    }

    /// Whether the call has its outcome already (the task need not be made).
    var isOver: Bool { state.withLock { $0.outcome != nil } }

    /// Records the task (on the transport's queue).
    ///
    /// - Returns: Whether to start it: `false` when the call is over already.
    func start(_ task: URLSessionDataTask) -> Bool {
        state.withLock { state in
            guard state.outcome == nil else { return false }
            state.task = task
            return true
        }
    }

    /// Resumes the caller with `result` unless an earlier outcome did; cancels the task (on the
    /// transport's queue) when it loses.
    func finish(with result: Result<TransportResponse, any Error>) {
        let (won, task, continuation) = state.withLock { state -> (Bool, URLSessionDataTask?, CheckedContinuation<TransportResponse, any Error>?) in
            guard state.outcome == nil else { return (false, nil, nil) }
            state.outcome = result
            defer { state.continuation = nil }
            return (true, state.task, state.continuation)
        }
        guard won else { return }
        if case .failure = result, let task { queue.async { task.cancel() } }
        continuation?.resume(with: result)
    }
}
