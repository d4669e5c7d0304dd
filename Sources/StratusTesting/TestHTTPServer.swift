public import Foundation
public import StratusHTTP
public import StratusHTTPServer
public import StratusLogging

/// A real ``HTTPServer`` on 127.0.0.1 and a free port, for live tests.
///
/// ```swift
/// let server = try TestHTTPServer(responder: router)
/// defer { Task { await server.stop() } }
/// let (data, response) = try await URLSession.shared.data(from: server.url("/health"))
/// ```
public final class TestHTTPServer: Sendable {
    /// The running server.
    public let server: HTTPServer

    /// Starts `responder` on 127.0.0.1 with an ephemeral port.
    ///
    /// - Parameters:
    ///   - responder: What answers requests.
    ///   - logger: Where the server logs; nowhere by default.
    ///   - configure: Adjusts the configuration before the server starts.
    public init(
        responder: any HTTPResponder, logger: Logger = .disabled,
        configure: (inout HTTPServerConfiguration) -> Void = { _ in }
    ) throws {
        var configuration = HTTPServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.threadPoolSize = 2
        // Every test client is 127.0.0.1: tests of the per-address limit set one themselves.
        configuration.perAddressConnectionLimit = 0
        configure(&configuration)
        server = HTTPServer(configuration: configuration, responder: responder, logger: logger)
        try server.start()
    }

    /// The port the server listens on.
    public var port: UInt16 { server.port }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> URL {
        // NB: the path is test-controlled and always forms a valid URL.
        URL(string: "http://127.0.0.1:\(port)\(path)").unsafelyUnwrapped
    }

    /// Stops the server, letting in-flight requests finish.
    public func stop(gracePeriod: Duration = .seconds(5)) async {
        await server.shutdown(gracePeriod: gracePeriod)
    }
}
