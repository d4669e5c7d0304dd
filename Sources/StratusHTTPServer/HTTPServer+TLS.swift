import CMicroHTTPD
import Foundation
import StratusLogging
import Synchronization

extension HTTPServer {
    /// Serves new connections with `identity` from now on, without dropping any open connection.
    ///
    /// The identity is first checked by GnuTLS in a daemon that listens nowhere. Then the running
    /// daemon stops accepting (`MHD_quiesce_daemon`) and hands its listening socket to a new
    /// daemon with the new identity, so no connection attempt is refused in between. The old daemon
    /// keeps serving the connections it has — parked long-polls and keep-alive connections
    /// included — and stops once the last one closed. `stratus serve` calls this on `SIGHUP`.
    ///
    /// ```swift
    /// let renewed = try TLSIdentity(certificateFile: certificate, keyFile: key)
    /// try server.reloadTLS(renewed)
    /// ```
    ///
    /// - Parameter identity: The certificate chain and key to serve from now on.
    /// - Throws: ``HTTPServerError``: `invalidTLSIdentity` when GnuTLS refuses the identity (the
    ///   server keeps serving the old one), `notRunning` before ``start()`` or during shutdown.
    public func reloadTLS(_ identity: TLSIdentity) throws(HTTPServerError) {
        try handOver.withLock { _ throws(HTTPServerError) in
            let (running, context) = state.withLock { state in
                (state.stopping ? nil : state.daemon, state.retainedSelf?.toOpaque())
            }
            guard let running, let context else {
                throw HTTPServerError(code: .notRunning, message: "the server is not running; start it before reloading its certificate")
            }
            guard running.identity != nil else {
                throw HTTPServerError(code: .notRunning, message: "the server serves plain HTTP; it was started without a TLS certificate")
            }
            let check = try startDaemon(listening: .none, identity: identity, context: context)
            MHD_stop_daemon(check.pointer)
            let socket = MHD_quiesce_daemon(running.pointer)
            guard socket >= 0 else {
                throw HTTPServerError(code: .notRunning, message: "libmicrohttpd did not hand over the listening socket; the old certificate stays")
            }
            // Each start gets a copy of the socket: libmicrohttpd closes the one it was given when its
            // start fails (seen with 0.9.75), and the fallback below needs it open. A daemon that starts
            // owns its copy; this one is closed on the way out.
            defer { close(socket) }
            let successor: DaemonHandle
            do throws(HTTPServerError) {
                successor = try startDaemon(listening: .socket(dup(socket)), identity: identity, context: context)
            } catch {
                // The old identity served on this socket a moment ago: serve it again rather than nothing.
                successor = try startDaemon(listening: .socket(dup(socket)), identity: running.identity, context: context)
                logger.error("the new certificate could not be served, the old one is served again: \(error)")
                // The fallback is the daemon now: shutdown stops it, and `running` only once, as retired.
                retire(running)
                state.withLock { $0.daemon = successor }
                throw error
            }
            retire(running)
            state.withLock { $0.daemon = successor }
            logger.notice("serving the TLS certificate \(identity.certificateFile?.path ?? "given") to new connections")
        }
    }

    /// Keeps a replaced daemon until its last connection closed, then stops it.
    private func retire(_ daemon: DaemonHandle) {
        state.withLock { $0.retiring.append(daemon) }
        Task.detached { [weak self] in
            while let self {
                // The daemon is read only while it is still listed, under the lock shutdown takes to
                // unlist (and then stop) it: otherwise a shutdown meanwhile had freed it.
                let outcome = self.state.withLock { state -> Bool? in
                    guard let index = state.retiring.firstIndex(where: { $0.pointer == daemon.pointer }) else { return nil }
                    guard stratus_mhd_current_connections(daemon.pointer) == 0 else { return false }
                    state.retiring.remove(at: index)
                    return true
                }
                switch outcome {
                case nil: return  // shut down: the server stopped it
                case true?:
                    MHD_stop_daemon(daemon.pointer)
                    return
                case false?: try? await Task.sleep(for: .milliseconds(250))
                }
            }
        }
    }
}

/// The NUL-terminated certificate, key and priority string a TLS daemon was started with.
///
/// libmicrohttpd keeps the pointers it is given; they stay valid until this is released, which
/// happens after the daemon that uses them stopped.
// Safety: the buffers are written once in init, only read by libmicrohttpd afterwards, and freed in deinit.
final class TLSMemory: @unchecked Sendable {
    private let certificate: UnsafeMutablePointer<CChar>
    private let key: UnsafeMutablePointer<CChar>
    private let priorities: UnsafeMutablePointer<CChar>

    init(identity: TLSIdentity, priorities: String) {
        certificate = Self.copy(identity.certificatePEM)
        key = Self.copy(identity.keyPEM)
        self.priorities = Self.copy(Data(priorities.utf8))
    }

    deinit {
        // NB: the key is wiped before it is freed, so it does not linger in freed memory.
        memset(key, 0, strlen(key))
        [certificate, key, priorities].forEach { $0.deallocate() }
    }

    /// The daemon options that carry them.
    var options: [MHD_OptionItem] {
        [
            MHD_OptionItem(option: .HTTPS_MEM_CERT, value: 0, ptr_value: UnsafeMutableRawPointer(certificate)),
            MHD_OptionItem(option: .HTTPS_MEM_KEY, value: 0, ptr_value: UnsafeMutableRawPointer(key)),
            MHD_OptionItem(option: .HTTPS_PRIORITIES, value: 0, ptr_value: UnsafeMutableRawPointer(priorities)),
        ]
    }

    /// `bytes` and a terminating NUL, in memory this object owns.
    private static func copy(_ bytes: Data) -> UnsafeMutablePointer<CChar> {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        for (offset, byte) in bytes.enumerated() { buffer[offset] = CChar(bitPattern: byte) }
        buffer[bytes.count] = 0
        return buffer
    }
}
