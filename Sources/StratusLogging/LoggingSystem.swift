import Synchronization

/// The process-wide choice of log handler, made once by the executable.
///
/// ```swift
/// LoggingSystem.bootstrap(level: .debug) { _ in StreamLogHandler(format: .jsonLines) }
/// ```
public enum LoggingSystem {
    private struct State: Sendable {
        var factory: @Sendable (String) -> any LogHandler = { _ in StreamLogHandler(format: .text) }
        var level: Logger.Level = .info
    }

    private static let state = Mutex(State())

    /// Chooses the handler factory and default level for loggers made with ``Logger/init(label:)``.
    ///
    /// - Parameters:
    ///   - level: The default level of new loggers.
    ///   - factory: Makes a handler for a logger label.
    public static func bootstrap(level: Logger.Level = .info, _ factory: @escaping @Sendable (String) -> any LogHandler) {
        state.withLock { $0 = State(factory: factory, level: level) }
    }

    /// The default level of new loggers.
    public static var defaultLevel: Logger.Level { state.withLock { $0.level } }

    /// Makes a handler for a logger with `label`.
    public static func makeHandler(label: String) -> any LogHandler {
        let factory = state.withLock { $0.factory }
        return factory(label)
    }
}
