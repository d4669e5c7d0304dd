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
/// import StratusHTTP
/// import StratusHTTPServer
///
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
    /// Serializes handing the listening socket from one daemon to the next (TLS reload, shutdown).
    let handOver = Mutex(())

    struct State: Sendable {
        var daemon: DaemonHandle?
        /// Daemons replaced by ``HTTPServer/reloadTLS(_:)`` that still serve their connections.
        var retiring: [DaemonHandle] = []
        var retainedSelf: Unmanaged<HTTPServer>?
        var port: UInt16 = 0
        var inFlight = 0
        var parked: [ObjectIdentifier: Parked] = [:]
        /// Handler tasks not yet returned, whether or not their connection was answered already
        /// (shutdown answers a late one itself, and its handler may still be using the store).
        var handlers = 0
        var stopping = false
    }

    struct Parked: Sendable {
        var context: InFlightRequest
        /// The suspension it is parked under.
        var ticket: Int
        var task: Task<Void, Never>?
    }

    // Safety: the daemon pointer is only passed to libmicrohttpd functions that
    // are safe from any thread (quiesce, stop, info) and is never used after stop.
    struct DaemonHandle: @unchecked Sendable {
        let pointer: OpaquePointer
        /// The certificate, key and priorities the daemon was started with, alive as long as it is.
        let tls: TLSMemory?
        /// The identity it serves, to start its successor or to restart it.
        let identity: TLSIdentity?
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
        let address = try SocketAddress(host: configuration.host, port: configuration.port)
        let retained = Unmanaged.passRetained(self)  // after the address: a refused one must not leak the server
        let daemon: DaemonHandle
        do {
            daemon = try startDaemon(listening: .address(address), identity: configuration.tls, context: retained.toOpaque())
        } catch {
            retained.release()
            throw error
        }
        checkFileLimit()
        let port = stratus_mhd_bound_port(daemon.pointer)
        state.withLock {
            $0.daemon = daemon
            $0.retainedSelf = retained
            $0.port = port
        }
        logger.info("listening on \(configuration.tls == nil ? "http" : "https")://\(address.urlHost):\(port)")
    }

    /// Where a new daemon listens: an address to bind, or the socket of the daemon it replaces.
    enum Listener {
        case address(SocketAddress)
        case socket(Int32)
        /// No socket at all: a daemon started only to check a TLS identity.
        case none
    }

    /// Starts one libmicrohttpd daemon serving this server's routes.
    func startDaemon(listening listener: Listener, identity: TLSIdentity?, context: UnsafeMutableRawPointer) throws(HTTPServerError) -> DaemonHandle {
        // NB: MHD_USE_ITC lets MHD_quiesce_daemon hand the listening socket over under a thread pool.
        var flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_USE_ITC.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue | MHD_USE_TURBO.rawValue
        var tls: TLSMemory?
        if let identity {
            guard stratus_mhd_supports_tls() != 0 else {
                throw HTTPServerError(
                    code: .tlsUnavailable, message: "this libmicrohttpd was built without TLS (GnuTLS); install one that has it, or serve behind a TLS proxy")
            }
            flags |= MHD_USE_TLS.rawValue
            tls = TLSMemory(identity: identity, priorities: configuration.tlsPriorities)
        }
        var address: SocketAddress?
        var socket: Int32?
        switch listener {
        case .address(let bound): address = bound
        case .socket(let descriptor): socket = descriptor
        case .none: flags |= MHD_USE_NO_LISTEN_SOCKET.rawValue
        }
        if address?.isIPv6 == true { flags |= MHD_USE_IPv6.rawValue }
        let start = { (sockaddr: UnsafeMutableRawPointer?) -> OpaquePointer? in
            var options = self.daemonOptions(sockaddr: sockaddr, listenSocket: socket, tls: tls, context: context)
            return options.withUnsafeMutableBufferPointer { buffer in
                stratus_mhd_start_daemon(flags, self.configuration.port, accessHandler, context, buffer.baseAddress)
            }
        }
        _ = transportLog.takeLatest()
        let pointer: OpaquePointer? = if var address { address.withSockaddr { start($0) } } else { start(nil) }
        guard let pointer else {
            // What libmicrohttpd said names the cause (a socket, thread or TLS failure) where the guesses below cannot.
            let said = transportLog.takeLatest().map { "; libmicrohttpd said: \($0)" } ?? ""
            if let identity {
                throw HTTPServerError(
                    code: .invalidTLSIdentity,
                    message:
                        "could not serve HTTPS on \(configuration.host):\(configuration.port) with \(identity.certificateFile?.path ?? "the certificate") and \(identity.keyFile?.path ?? "its key"): the address is in use, or GnuTLS refused them (a key that does not match the certificate, a malformed PEM, or a priority string it does not know: \(configuration.tlsPriorities))\(said)"
                )
            }
            throw HTTPServerError(
                code: .bindFailed,
                message: "could not listen on \(configuration.host):\(configuration.port) (address in use, or not permitted)\(said)"
            )
        }
        return DaemonHandle(pointer: pointer, tls: tls, identity: identity)
    }

    /// libmicrohttpd's options for this configuration, ending with `MHD_OPTION_END`.
    private func daemonOptions(
        sockaddr: UnsafeMutableRawPointer?, listenSocket: Int32?, tls: TLSMemory?, context: UnsafeMutableRawPointer
    ) -> [MHD_OptionItem] {
        var options: [MHD_OptionItem] = [
            // NB: first, so that no message of the start goes to standard error.
            MHD_OptionItem(
                option: .EXTERNAL_LOGGER, value: unsafeBitCast(stratus_mhd_log_callback(), to: Int.self), ptr_value: transportLog.logger
            ),
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: configuration.connectionLimit, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: configuration.connectionTimeout, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: configuration.connectionMemoryLimit, ptr_value: nil),
            MHD_OptionItem(option: .LISTEN_BACKLOG_SIZE, value: 1024, ptr_value: nil),
            MHD_OptionItem(option: .NOTIFY_COMPLETED, value: unsafeBitCast(requestCompleted, to: Int.self), ptr_value: context),
        ]
        if let sockaddr { options.append(MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: sockaddr)) }
        if let listenSocket { options.append(MHD_OptionItem(option: .LISTEN_SOCKET, value: Int(listenSocket), ptr_value: nil)) }
        if let tls { options += tls.options }
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
    /// still have not answered a moment later get 503 `TRY_AGAIN_LATER`. Returns only once
    /// every handler has returned and no connection is suspended, so the caller may close
    /// what the handlers use (the store) right after.
    ///
    /// - Parameter gracePeriod: How long in-flight requests may take; the configured default when `nil`.
    public func shutdown(gracePeriod: Duration? = nil) async {
        let daemon: DaemonHandle? = handOver.withLock { _ in
            let daemon: DaemonHandle? = state.withLock { state in
                guard !state.stopping, let daemon = state.daemon else { return nil }
                state.stopping = true
                return daemon
            }
            if let daemon {
                let listener = MHD_quiesce_daemon(daemon.pointer)
                if listener >= 0 { close(listener) }
            }
            return daemon
        }
        guard let daemon else { return }
        logger.info("shutting down; waiting for \(inFlightRequests) in-flight request(s)")

        let deadline = ContinuousClock.now + (gracePeriod ?? configuration.shutdownGracePeriod)
        await waitUntil(deadline) { $0.inFlight == 0 }
        let parked = state.withLock { Array($0.parked.values) }
        if !parked.isEmpty {
            logger.warning("cancelling \(parked.count) request(s) still running after the grace period")
            parked.forEach { $0.task?.cancel() }
            await waitUntil(.now + .seconds(1)) { $0.parked.isEmpty }
            for entry in state.withLock({ Array($0.parked.values) }) {
                resume(entry.context, entry.ticket, with: .response(responder.reject(entry.context.head, with: .shuttingDown)))
            }
        }
        // NB: no deadline: every connection still listed was resumed (by shutdown or a task that
        // won its ticket) and leaves the list right after; nothing can park any more. Stopping
        // the daemon with a connection suspended aborts the process.
        await waitUntil(nil) { $0.parked.isEmpty }
        // NB: no deadline either: a handler answered by shutdown may still be running (it was
        // cancelled, and cancellation is cooperative), and what it uses — the store above all —
        // is closed by the caller as soon as this returns.
        if state.withLock({ $0.handlers }) > 0 {
            logger.warning("waiting for \(state.withLock { $0.handlers }) cancelled handler(s) to return")
            await waitUntil(nil) { $0.handlers == 0 }
        }
        await waitUntil(.now + .seconds(2)) { $0.inFlight == 0 }

        let (current, retiring, retained) = state.withLock { state -> (DaemonHandle?, [DaemonHandle], Unmanaged<HTTPServer>?) in
            defer {
                state.daemon = nil
                state.retiring = []
                state.retainedSelf = nil
            }
            return (state.daemon, state.retiring, state.retainedSelf)
        }
        for stopped in retiring + [current ?? daemon] { MHD_stop_daemon(stopped.pointer) }
        retained?.release()
        logger.info("stopped")
    }

    private func waitUntil(_ deadline: ContinuousClock.Instant?, _ done: (State) -> Bool) async {
        while !state.withLock({ done($0) }), deadline.map({ ContinuousClock.now < $0 }) ?? true {
            // NB: not `Task.sleep`, which a cancelled caller skips: a cancelled shutdown still
            // has to wait for the connections before it stops the daemon.
            await withCheckedContinuation { continuation in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(5)) { continuation.resume() }
            }
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
        /// The TLS certificate or key cannot be read or used.
        public static let invalidTLSIdentity = Code(rawValue: "invalidTLSIdentity")
        /// HTTPS was asked for, and the HTTP library has no TLS.
        public static let tlsUnavailable = Code(rawValue: "tlsUnavailable")
        /// The server is not running (not started, or shut down).
        public static let notRunning = Code(rawValue: "notRunning")
    }

    /// What kind of failure it was.
    public var code: Code
    /// What went wrong, naming the address.
    public var message: String

    /// The message.
    public var description: String { message }
}
