import CMicroHTTPD
import Foundation
public import StratusHTTP
public import StratusLogging
public import StratusMetrics
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd that hands every request to an ``HTTPResponder``.
///
/// Immediate handlers answer on one of the event-loop threads. Async handlers
/// park the connection (`MHD_suspend_connection`), run as a Swift task and
/// resume it when they return, so a long-poll holds no thread while it waits.
///
/// ```swift
/// var router = Router()
/// router.immediate(.get, "/health") { _ in .text("ok") }
/// let server = HTTPServer(configuration: .init(), responder: router, logger: logger)
/// try server.start()
/// print("listening on port \(server.port)")
/// await server.shutdown()
/// ```
public final class HTTPServer: Sendable {
    /// Where and how the server listens.
    public let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let logger: Logger
    let state = Mutex(State())
    let inFlightGauge: Gauge?
    let parkedGauge: Gauge?
    let bufferedGauge: Gauge?
    /// libmicrohttpd's messages, rate-limited into ``logger``.
    let transportLog: TransportLog
    /// Bytes of request bodies held in memory right now, across every connection.
    let bufferedBodyTotal = Atomic<Int>(0)

    struct State: Sendable {
        var daemon: DaemonHandle?
        var retainedSelf: Unmanaged<HTTPServer>?
        var port: UInt16 = 0
        var inFlight = 0
        var parked: [ObjectIdentifier: Parked] = [:]
        var stopping = false
    }

    struct Parked: Sendable {
        var context: RequestContext
        /// The suspension it is parked under.
        var ticket: Int
        var task: Task<Void, Never>?
    }

    // Safety: the daemon pointer is only passed to libmicrohttpd functions that
    // are safe from any thread (quiesce, stop, info) and is never used after stop.
    struct DaemonHandle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// Creates a server; nothing listens until ``start()``.
    ///
    /// - Parameters:
    ///   - configuration: Address, port and limits.
    ///   - responder: What answers requests, usually a ``Router``.
    ///   - logger: Where start, stop and transport problems are logged.
    ///   - metrics: Where gauges for in-flight and parked requests are registered, if anywhere.
    public init(
        configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger,
        metrics: MetricsRegistry? = nil
    ) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        self.transportLog = TransportLog(logger: logger)
        inFlightGauge = metrics?.gauge("stratus_http_requests_in_flight", help: "Requests being read or answered.")
        parkedGauge = metrics?.gauge("stratus_http_requests_parked", help: "Requests parked while an async handler or head check runs.")
        bufferedGauge = metrics?.gauge("stratus_http_buffered_body_bytes", help: "Bytes of request bodies held in memory.")
    }

    /// The port the server listens on; useful after starting with port 0.
    public var port: UInt16 { state.withLock { $0.port } }

    /// Requests being read, handled or sent right now.
    public var inFlightRequests: Int { state.withLock { $0.inFlight } }

    /// Bytes of request bodies held in memory right now, across every connection (streamed
    /// bodies are not counted: they are on disk).
    public var bufferedBodyBytes: Int { bufferedBodyTotal.load(ordering: .relaxed) }

    /// Binds the address and starts the event-loop threads.
    ///
    /// - Throws: ``HTTPServerError`` when the address is invalid or cannot be bound.
    public func start() throws(HTTPServerError) {
        let alreadyStarted = state.withLock { $0.daemon != nil }
        precondition(!alreadyStarted, "HTTPServer.start() called twice")
        let retained = Unmanaged.passRetained(self)
        var address = try SocketAddress(host: configuration.host, port: configuration.port)
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue | MHD_USE_TURBO.rawValue
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        let pointer: OpaquePointer? = address.withSockaddr { sockaddr in
            var options = daemonOptions(sockaddr: sockaddr, context: retained.toOpaque())
            return options.withUnsafeMutableBufferPointer { buffer in
                stratus_mhd_start_daemon(flags, configuration.port, accessHandler, retained.toOpaque(), buffer.baseAddress)
            }
        }
        guard let pointer else {
            retained.release()
            throw HTTPServerError(
                code: .bindFailed,
                message: "could not listen on \(configuration.host):\(configuration.port) (address in use, or not permitted)"
            )
        }
        checkFileLimit()
        let port = stratus_mhd_bound_port(pointer)
        state.withLock {
            $0.daemon = DaemonHandle(pointer: pointer)
            $0.retainedSelf = retained
            $0.port = port
        }
        logger.info("listening on http://\(address.urlHost):\(port)")
    }

    /// libmicrohttpd's options for this configuration, ending with `MHD_OPTION_END`.
    private func daemonOptions(sockaddr: UnsafeMutableRawPointer, context: UnsafeMutableRawPointer) -> [MHD_OptionItem] {
        var options: [MHD_OptionItem] = [
            // NB: first, so that no message of the start goes to standard error.
            MHD_OptionItem(
                option: .EXTERNAL_LOGGER, value: unsafeBitCast(stratus_mhd_log_callback(), to: Int.self), ptr_value: transportLog.logger
            ),
            MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: sockaddr),
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: configuration.connectionLimit, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: configuration.connectionTimeout, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: configuration.connectionMemoryLimit, ptr_value: nil),
            MHD_OptionItem(option: .LISTEN_BACKLOG_SIZE, value: 1024, ptr_value: nil),
            MHD_OptionItem(option: .NOTIFY_COMPLETED, value: unsafeBitCast(requestCompleted, to: Int.self), ptr_value: context),
        ]
        if configuration.perAddressConnectionLimit > 0 {
            // NB: libmicrohttpd accepts a connection over the limit and closes it at once.
            options.append(MHD_OptionItem(option: .PER_IP_CONNECTION_LIMIT, value: configuration.perAddressConnectionLimit, ptr_value: nil))
        }
        if configuration.threadPoolSize > 1 {
            // NB: a pool of one is refused with a warning; without the option MHD runs one internal thread.
            options.append(MHD_OptionItem(option: .THREAD_POOL_SIZE, value: configuration.threadPoolSize, ptr_value: nil))
        }
        options.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))
        return options
    }

    /// Warns when the process may open fewer files than the connection limit needs, so accepting
    /// would fail with `EMFILE` (for the store's files too) before the limit is reached.
    private func checkFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return }
        let needed = configuration.connectionLimit + 64
        if limit.rlim_cur < rlim_t(needed) {
            logger.warning(
                "the open-file limit (\(limit.rlim_cur)) is below the connection limit (\(configuration.connectionLimit)) plus room for the store's files; raise it (ulimit -n \(needed)) or lower the connection limit"
            )
        }
    }

    /// Stops accepting connections, lets in-flight requests finish, then stops.
    ///
    /// Requests still running after the grace period are cancelled; any that
    /// still have not answered a moment later get 503 `TRY_AGAIN_LATER`.
    ///
    /// - Parameter gracePeriod: How long in-flight requests may take; the configured default when `nil`.
    public func shutdown(gracePeriod: Duration? = nil) async {
        let daemon: DaemonHandle? = state.withLock { state in
            guard !state.stopping, let daemon = state.daemon else { return nil }
            state.stopping = true
            return daemon
        }
        guard let daemon else { return }
        logger.info("shutting down; waiting for \(inFlightRequests) in-flight request(s)")
        let listener = MHD_quiesce_daemon(daemon.pointer)
        if listener >= 0 { close(listener) }

        let deadline = ContinuousClock.now + (gracePeriod ?? configuration.shutdownGracePeriod)
        await waitUntil(deadline) { $0.inFlight == 0 }
        let parked = state.withLock { Array($0.parked.values) }
        if !parked.isEmpty {
            logger.warning("cancelling \(parked.count) request(s) still running after the grace period")
            parked.forEach { $0.task?.cancel() }
            await waitUntil(.now + .seconds(1)) { $0.parked.isEmpty }
            for entry in state.withLock({ Array($0.parked.values) }) {
                entry.context.resume(entry.ticket, with: .response(responder.reject(entry.context.head, with: .shuttingDown)))
            }
        }
        await waitUntil(.now + .seconds(2)) { $0.inFlight == 0 }

        MHD_stop_daemon(daemon.pointer)
        let retained = state.withLock { state -> Unmanaged<HTTPServer>? in
            defer {
                state.daemon = nil
                state.retainedSelf = nil
            }
            return state.retainedSelf
        }
        retained?.release()
        logger.info("stopped")
    }

    private func waitUntil(_ deadline: ContinuousClock.Instant, _ done: (State) -> Bool) async {
        while !state.withLock({ done($0) }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// Why the server could not start.
public struct HTTPServerError: Error, CustomStringConvertible {
    /// What kind of failure it was.
    public struct Code: RawRepresentable, Hashable, Sendable {
        /// The code's name.
        public let rawValue: String
        /// Wraps a code name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The host is not an IPv4 or IPv6 literal.
        public static let invalidAddress = Code(rawValue: "invalidAddress")
        /// The address could not be bound.
        public static let bindFailed = Code(rawValue: "bindFailed")
    }

    /// What kind of failure it was.
    public var code: Code
    /// What went wrong, naming the address.
    public var message: String

    /// The message.
    public var description: String { message }
}
