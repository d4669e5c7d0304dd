import Foundation

/// The real clock and UUIDs; injected everywhere else so tests can drive them.
enum LiveClock {
    @Sendable static func milliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    @Sendable static func uuidString() -> String {
        UUID().uuidString
    }
}
