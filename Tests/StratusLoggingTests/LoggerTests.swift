import Foundation
import StratusLogging
import Testing

@Suite struct LoggerTests {
    /// Records below the logger's level are dropped without building their message.
    @Test func recordsBelowTheLevelAreDroppedUnbuilt() {
        let handler = InMemoryLogHandler()
        let logger = Logger(label: "t", level: .warning, handler: handler)
        var built = false
        logger.info(
            {
                built = true; return "hidden"
            }())
        logger.error("shown")
        #expect(!built)
        #expect(handler.entries.map(\.message) == ["shown"])
        #expect(handler.entries.first?.level == .error)
    }

    /// A record carries the logger's metadata merged with its own, its own winning.
    @Test func metadataMergesWithRecordMetadataWinning() {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "t", level: .trace, handler: handler)
        logger[metadataKey: "request-id"] = "A"
        logger[metadataKey: "zone"] = "Inbox"
        logger.debug("x", metadata: ["zone": "Outbox"])
        #expect(handler.entries.first?.metadata == ["request-id": "A", "zone": "Outbox"])
        #expect(handler.entries.first?.label == "t")
    }

    /// Text lines carry time, level, label, message and sorted metadata.
    @Test func textFormatIsOneReadableLine() {
        let record = LogRecord(
            date: Date(timeIntervalSince1970: 0), level: .notice, label: "stratus.http", message: "done",
            metadata: ["b": "2", "a": "1"], file: "f", line: 1
        )
        #expect(StreamLogHandler.render(record, format: .text) == "1970-01-01T00:00:00.000Z notice stratus.http: done a=1 b=2")
    }

    /// JSON lines are one object per record that a log collector can parse.
    @Test func jsonLinesFormatIsParseable() throws {
        let record = LogRecord(
            date: Date(timeIntervalSince1970: 0), level: .error, label: "s", message: "quote \" and\nnewline",
            metadata: ["request-id": "R"], file: "f", line: 1
        )
        let line = StreamLogHandler.render(record, format: .jsonLines)
        #expect(!line.contains("\n"))
        let parsed = try JSONSerialization.jsonObject(with: Data(line.utf8))
        let object = try #require(parsed as? [String: String])
        #expect(object["msg"] == "quote \" and\nnewline")
        #expect(object["level"] == "error")
        #expect(object["request-id"] == "R")
    }

    /// Level names parse case-insensitively and unknown names are refused.
    @Test func levelNamesParse() {
        #expect(Logger.Level(name: "DEBUG") == .debug)
        #expect(Logger.Level(name: "verbose") == nil)
        #expect(Logger.Level.allCases.sorted() == Logger.Level.allCases)
    }

    /// Text lines escape what could end or hide a line, and quote values that could pass for more fields.
    @Test func textLinesEscapeControlCharactersAndQuoteAmbiguousValues() {
        let record = LogRecord(
            date: Date(timeIntervalSince1970: 0), level: .notice, label: "s", message: "a\nb\r\u{2028}c\u{202E}d\\e\u{1B}[31m",
            metadata: ["email": "x@y.z\nforged=1", "plain": "v", "empty": ""], file: "f", line: 1
        )
        let line = StreamLogHandler.render(record, format: .text)
        #expect(line == #"1970-01-01T00:00:00.000Z notice s: a\nb\r\u{2028}c\u{202e}d\\e\u{1b}[31m email="x@y.z\nforged=1" empty="" plain=v"#)
        #expect(!line.contains(where: { $0.isNewline }))
    }

    /// JSON lines escape the same characters as \uXXXX, and parsers get the original text back.
    @Test func jsonLinesEscapeEveryLineBreakAndGiveTheTextBack() throws {
        let message = "a\u{85}b\u{2028}c\u{2029}d\u{7F}e\u{202E}f\"\\"
        let record = LogRecord(
            date: Date(timeIntervalSince1970: 0), level: .info, label: "s", message: message, metadata: ["k\n": "v\r"], file: "f", line: 1
        )
        let line = StreamLogHandler.render(record, format: .jsonLines)
        #expect(!line.contains(where: { $0.isNewline }))
        #expect(line.contains(#"\u0085"#) && line.contains(#"\u2028"#) && line.contains(#"\u202e"#))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        #expect(object["msg"] == message)
        #expect(object["k\n"] == "v\r")
    }
}
