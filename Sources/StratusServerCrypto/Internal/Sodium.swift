internal import CSodium
import StratusCrypto

/// One-time libsodium initialisation.
enum Sodium {
    /// The result of `sodium_init()`, computed once.
    ///
    /// Swift runs a `static let` initialiser exactly once, thread-safely, on
    /// first use. > sodium_init() initializes the library and should be called
    /// before any other function provided by Sodium. ... returns 0 on success,
    /// -1 on failure, and 1 if the library had already been initialized.
    private static let status: Int32 = sodium_init()

    /// Initialises libsodium if needed.
    ///
    /// - Throws: ``CryptoError/Code/initializationFailed`` if `sodium_init()` failed.
    static func ensureInitialized() throws {
        guard status >= 0 else {
            throw CryptoError(code: .initializationFailed, message: "sodium_init() failed (status \(status))")
        }
    }
}
