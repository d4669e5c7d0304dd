import Foundation
import Synchronization

/// Writes records to standard error (or standard output) as text or JSON lines.
///
/// Text: `2026-11-30T07:00:00.123Z info stratus.http: request finished request-id=3F2A status=200`.
/// JSON lines: one object per record with `ts`, `level`, `label`, `msg` and the metadata keys.
public struct StreamLogHandler: LogHandler {
    /// How each record is rendered.
    public enum Format: Sendable {
        /// One human-readable line per record.
        case text
        /// One JSON object per line, for log collectors.
        case jsonLines
    }

    /// Which stream records go to.
    public enum Stream: Sendable {
        /// File descriptor 1.
        case standardOutput
        /// File descriptor 2.
        case standardError
    }

    private let format: Format
    private let stream: Stream
    private static let writeLock = Mutex(())

    /// Creates a handler.
    ///
    /// - Parameters:
    ///   - format: Text or JSON lines.
    ///   - stream: Standard error by default.
    public init(format: Format, stream: Stream = .standardError) {
        self.format = format
        self.stream = stream
    }

    /// Renders and writes the record as one line.
    public func write(_ record: LogRecord) {
        let line = Self.render(record, format: format) + "\n"
        let handle: FileHandle = stream == .standardOutput ? .standardOutput : .standardError
        Self.writeLock.withLock { _ in handle.write(Data(line.utf8)) }
    }

    /// Renders one record without the trailing newline.
    ///
    /// Whatever the record holds — a message or metadata built from user input — the result is one
    /// line: control characters, line separators and bidirectional overrides are escaped in every
    /// format (see `LogEscaping`), and text-format metadata values with spaces are quoted.
    public static func render(_ record: LogRecord, format: Format) -> String {
        let timestamp = record.date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        switch format {
        case .text:
            var line = "\(timestamp) \(record.level) \(LogEscaping.text(record.label)): \(LogEscaping.text(record.message))"
            for key in record.metadata.keys.sorted() {
                line += " \(LogEscaping.field(key))=\(LogEscaping.field(record.metadata[key] ?? ""))"
            }
            return line
        case .jsonLines:
            var object: [String: String] = record.metadata
            object["ts"] = timestamp
            object["level"] = record.level.description
            object["label"] = record.label
            object["msg"] = record.message
            let members = object.keys.sorted().map { key in LogEscaping.json(key) + ":" + LogEscaping.json(object[key] ?? "") }
            return "{" + members.joined(separator: ",") + "}"
        }
    }
}
