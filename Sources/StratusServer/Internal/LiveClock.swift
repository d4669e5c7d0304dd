import Foundation
import StratusCrypto

/// The real clock and UUIDs; injected everywhere else so tests can drive them.
enum LiveClock {
    @Sendable static func milliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// A random UUID string, without Foundation's read of `/dev/urandom` per UUID (made per record written).
    @Sendable static func uuidString() -> String {
        SecureRandom.uuid().uuidString
    }
}
