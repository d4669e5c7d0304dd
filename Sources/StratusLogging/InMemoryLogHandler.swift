import Synchronization

/// Keeps records in memory so tests can assert on what was logged.
///
/// ```swift
/// import StratusLogging
/// import Testing
///
/// let records = InMemoryLogHandler()
/// let logger = Logger(label: "test", level: .trace, handler: records)
/// logger.info("hello")
/// #expect(records.entries.map(\.message) == ["hello"])
/// ```
public final class InMemoryLogHandler: LogHandler {
    private let storage = Mutex<[LogRecord]>([])

    /// Creates an empty handler.
    public init() {}

    /// Appends the record.
    public func write(_ record: LogRecord) {
        storage.withLock { $0.append(record) }
    }

    /// Every record written so far, oldest first.
    public var entries: [LogRecord] { storage.withLock { $0 } }
}
