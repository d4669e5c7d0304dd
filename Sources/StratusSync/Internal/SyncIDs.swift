import Foundation
import StratusCrypto

/// New sync IDs (the record names of entities that have none), for this module and the store
/// adapter of this package.
///
/// A bulk capture names every new object: `UUID()` opened, read and closed `/dev/urandom` for each
/// on Linux (three system calls per note); ``SecureRandom/uuid()`` draws from OpenSSL's generator.
package enum SyncIDs {
    /// A new random UUID string, as CloudKit clients name new records.
    package static func make() -> String {
        SecureRandom.uuid().uuidString
    }
}
