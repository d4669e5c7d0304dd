import Foundation
import StratusCrypto

/// The real clock, randomness and identifiers; the only place the SDK reads them.
enum LiveEnvironment {
    /// Sleeps on the continuous clock.
    @Sendable static func sleep(_ duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }

    /// A uniform random number in `0..<1`.
    @Sendable static func random() -> Double {
        Double.random(in: 0..<1)
    }

    /// The current date.
    @Sendable static func now() -> Date {
        Date()
    }
}

/// New record names.
///
/// Package-wide: the sync framework and the store adapter name new entities' records (their sync
/// IDs) with it too. `SecureRandom.uuid()`: Foundation's `UUID()` reads `/dev/urandom` per UUID on Linux.
package enum LiveIdentifiers {
    /// A new UUID string, as CloudKit clients name new records.
    package static func newRecordName() -> String {
        SecureRandom.uuid().uuidString
    }
}
