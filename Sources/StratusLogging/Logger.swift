public import Foundation

/// A value that writes log records to a ``LogHandler``, in the shape of swift-log.
///
/// Libraries take a `Logger` as a parameter and never make their own; the
/// executable chooses the handler once with ``LoggingSystem/bootstrap(_:)``.
///
/// ```swift
/// var logger = Logger(label: "stratus.http")
/// logger[metadataKey: "request-id"] = "3F2A"
/// logger.info("request finished", metadata: ["status": "200"])
/// ```
public struct Logger: Sendable {
    /// The name of the subsystem that logs, such as `stratus.http`.
    public let label: String
    /// Records below this level are dropped before their message is built.
    public var logLevel: Level
    /// Metadata attached to every record this logger writes.
    public var metadata: Metadata
    /// Where records go.
    public let handler: any LogHandler

    /// Creates a logger that writes to `handler`.
    ///
    /// - Parameters:
    ///   - label: The subsystem name.
    ///   - level: The lowest level written; `.info` by default.
    ///   - handler: Where records go.
    public init(label: String, level: Level = .info, handler: any LogHandler) {
        self.label = label
        self.logLevel = level
        self.metadata = [:]
        self.handler = handler
    }

    /// Creates a logger whose handler comes from ``LoggingSystem``.
    ///
    /// - Parameter label: The subsystem name.
    public init(label: String) {
        self.init(label: label, level: LoggingSystem.defaultLevel, handler: LoggingSystem.makeHandler(label: label))
    }

    /// A logger that drops everything; the default for libraries given no logger.
    public static let disabled = Logger(label: "disabled", level: .critical, handler: NoOpLogHandler())

    /// Reads or writes one metadata value.
    public subscript(metadataKey key: String) -> String? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes a record at `level` if the level is enabled.
    ///
    /// - Parameters:
    ///   - level: How severe the record is.
    ///   - message: The text, built only if the record is written.
    ///   - metadata: Extra key-values for this record only.
    public func log(
        level: Level,
        _ message: @autoclosure () -> String,
        metadata extra: @autoclosure () -> Metadata? = nil,
        file: String = #fileID,
        line: UInt = #line
    ) {
        guard level >= logLevel else { return }
        var merged = metadata
        if let extra = extra() {
            merged.merge(extra) { _, new in new }
        }
        handler.write(
            LogRecord(
                date: Date(), level: level, label: label, message: message(), metadata: merged,
                file: file, line: line
            )
        )
    }

    /// Writes a `.trace` record.
    public func trace(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil, file: String = #fileID, line: UInt = #line) {
        log(level: .trace, message(), metadata: metadata(), file: file, line: line)
    }

    /// Writes a `.debug` record.
    public func debug(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil, file: String = #fileID, line: UInt = #line) {
        log(level: .debug, message(), metadata: metadata(), file: file, line: line)
    }

    /// Writes an `.info` record.
    public func info(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil, file: String = #fileID, line: UInt = #line) {
        log(level: .info, message(), metadata: metadata(), file: file, line: line)
    }

    /// Writes a `.notice` record.
    public func notice(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil, file: String = #fileID, line: UInt = #line) {
        log(level: .notice, message(), metadata: metadata(), file: file, line: line)
    }

    /// Writes a `.warning` record.
    public func warning(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil, file: String = #fileID, line: UInt = #line) {
        log(level: .warning, message(), metadata: metadata(), file: file, line: line)
    }

    /// Writes an `.error` record.
    public func error(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil, file: String = #fileID, line: UInt = #line) {
        log(level: .error, message(), metadata: metadata(), file: file, line: line)
    }

    /// Writes a `.critical` record.
    public func critical(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil, file: String = #fileID, line: UInt = #line) {
        log(level: .critical, message(), metadata: metadata(), file: file, line: line)
    }
}

extension Logger {
    /// Key-values attached to log records.
    public typealias Metadata = [String: String]

    /// How severe a record is, from `trace` (most verbose) to `critical`.
    public enum Level: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
        case trace, debug, info, notice, warning, error, critical

        /// Parses a level name such as `"debug"`; `nil` for an unknown name.
        public init?(name: String) {
            guard let level = Self.allCases.first(where: { $0.description == name.lowercased() }) else { return nil }
            self = level
        }

        /// The lowercase level name.
        public var description: String {
            switch self {
            case .trace: "trace"
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            case .critical: "critical"
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }
}

/// One log record, as handed to a ``LogHandler``.
public struct LogRecord: Sendable {
    /// When the record was made.
    public var date: Date
    /// How severe it is.
    public var level: Logger.Level
    /// The label of the logger that wrote it.
    public var label: String
    /// The message text.
    public var message: String
    /// The logger's metadata merged with the record's own.
    public var metadata: Logger.Metadata
    /// The source file (`#fileID`) that wrote it.
    public var file: String
    /// The source line that wrote it.
    public var line: UInt

    /// Creates a record; loggers do this, handlers and tests may too.
    public init(
        date: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata, file: String,
        line: UInt
    ) {
        self.date = date
        self.level = level
        self.label = label
        self.message = message
        self.metadata = metadata
        self.file = file
        self.line = line
    }
}

/// Where log records go: a stream, memory, or nowhere.
public protocol LogHandler: Sendable {
    /// Writes one record. Called from any thread.
    func write(_ record: LogRecord)
}

/// A handler that drops every record.
public struct NoOpLogHandler: LogHandler {
    /// Creates the handler.
    public init() {}
    /// Drops the record.
    public func write(_ record: LogRecord) {}
}
