#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import StratusCrypto
internal import CSodium

/// Hashes and verifies passwords with Argon2id (libsodium's `crypto_pwhash_str`), a few at a time.
///
/// Each hash uses ``Configuration/memoryLimit`` bytes (64 MiB by default), so
/// at most ``Configuration/maximumConcurrentOperations`` hashes or verifications
/// run at once (2 by default); further calls wait, without blocking a thread,
/// and can be cancelled while they wait. The Argon2 work itself runs on a
/// dedicated thread, never on the Swift cooperative pool, so a burst of logins
/// doesn't stall other tasks.
///
/// The result is a self-describing PHC string such as
/// `$argon2id$v=19$m=65536,t=2,p=1$<salt>$<hash>`, which carries its own salt
/// and costs; store it as is.
///
/// ```swift
/// let hasher = PasswordHasher()
/// let stored = try await hasher.hash("correct horse battery staple")
/// if try await hasher.verify(attempt, against: stored) {
///     if try hasher.needsRehash(stored) { /* hash again with today's costs */ }
/// }
/// ```
///
/// Passwords are hashed as their UTF-8 bytes, without Unicode normalization.
public final class PasswordHasher: Sendable {
    /// The costs new hashes use and the concurrency limit.
    public let configuration: Configuration

    private let semaphore: AsyncSemaphore
    /// The peak number of Argon2 operations in flight at once (for tests).
    let gauge = ConcurrencyGauge()
    /// Runs on the worker thread before each Argon2 call (for tests that need overlap).
    let beforeOperation: (@Sendable () -> Void)?

    /// Creates a hasher.
    ///
    /// - Parameter configuration: Argon2id costs and concurrency limit; ``Configuration/interactive`` by default.
    public convenience init(configuration: Configuration = .interactive) {
        self.init(configuration: configuration, beforeOperation: nil)
    }

    init(configuration: Configuration, beforeOperation: (@Sendable () -> Void)?) {
        self.configuration = configuration
        self.semaphore = AsyncSemaphore(limit: configuration.maximumConcurrentOperations)
        self.beforeOperation = beforeOperation
    }

    /// Hashes a password with a fresh random salt.
    ///
    /// - Parameter password: The password; hashed as its UTF-8 bytes.
    /// - Returns: The PHC string, starting with `$argon2id$`, at most 127 ASCII characters.
    /// - Throws: ``CryptoError`` with ``CryptoError/Code/hashingFailed`` if Argon2 fails
    ///   (usually because it could not allocate its memory); `CancellationError` if the
    ///   task is cancelled while waiting for its turn.
    public func hash(_ password: String) async throws -> String {
        try Sodium.ensureInitialized()
        let configuration = configuration
        return try await run("hash") {
            try Self.hashNow(password, configuration: configuration)
        }
    }

    /// Checks a password against a stored hash, in constant time with respect to the password.
    ///
    /// The costs come from the stored hash, not from ``configuration``, so
    /// hashes made with older settings still verify.
    ///
    /// - Parameters:
    ///   - password: The password to check.
    ///   - hash: A PHC string from ``hash(_:)``, or any `$argon2id$` / `$argon2i$` string.
    /// - Returns: `true` if the password matches.
    /// - Throws: ``CryptoError`` with ``CryptoError/Code/invalidPasswordHash`` if `hash` is
    ///   not an Argon2 hash string, ``CryptoError/Code/hashingFailed`` if Argon2 fails for
    ///   another reason (such as memory); `CancellationError` if cancelled while waiting.
    public func verify(_ password: String, against hash: String) async throws -> Bool {
        try Sodium.ensureInitialized()
        try Self.checkWellFormed(hash)
        return try await run("verify") {
            try Self.verifyNow(password, against: hash)
        }
    }

    /// Reports whether a stored hash was made with costs other than ``configuration``'s.
    ///
    /// Call it after a successful ``verify(_:against:)``, when the plain password is
    /// at hand, to upgrade old hashes.
    ///
    /// - Parameter hash: A stored PHC string.
    /// - Returns: `true` if the hash's algorithm or costs differ from the configuration.
    /// - Throws: ``CryptoError`` with ``CryptoError/Code/invalidPasswordHash`` if `hash` is
    ///   not an Argon2 hash string.
    public func needsRehash(_ hash: String) throws -> Bool {
        try Sodium.ensureInitialized()
        try Self.checkWellFormed(hash)
        // > crypto_pwhash_str_needs_rehash() ... returns 1 if the string appears to be
        // > correct but doesn't match the given parameters ... 0 if [it matches] and -1
        // > if the string appears to be invalid.
        let status = hash.withCString {
            crypto_pwhash_str_needs_rehash($0, UInt64(configuration.operationsLimit), configuration.memoryLimit)
        }
        switch status {
        case 0: return false
        case 1: return true
        default: throw Self.invalidHash(hash)
        }
    }

    // MARK: Work

    private func run<Value: Sendable>(_ name: String, _ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        let gauge = gauge
        let beforeOperation = beforeOperation
        return try await semaphore.withPermit {
            try await DedicatedThread.run(name: "stratus.password-\(name)") {
                try gauge.measure {
                    beforeOperation?()
                    return try work()
                }
            }
        }
    }

    private static func hashNow(_ password: String, configuration: Configuration) throws -> String {
        var output = [CChar](repeating: 0, count: crypto_pwhash_strbytes())
        errno = 0
        let status = withPasswordBytes(password) { password, length in
            output.withUnsafeMutableBufferPointer { outputBuffer -> Int32 in
                guard let out = outputBuffer.baseAddress else { return -1 }
                return crypto_pwhash_str_alg(
                    out,
                    password,
                    length,
                    UInt64(configuration.operationsLimit),
                    configuration.memoryLimit,
                    crypto_pwhash_alg_argon2id13()
                )
            }
        }
        guard status == 0 else {
            throw CryptoError(
                code: .hashingFailed,
                message: "crypto_pwhash_str_alg(argon2id, t=\(configuration.operationsLimit), "
                    + "m=\(configuration.memoryLimit) bytes) failed (errno \(errno): \(String(cString: strerror(errno))))"
            )
        }
        // > crypto_pwhash_str() puts an ASCII-encoded, zero-terminated string into `out`.
        let text = output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: text, as: UTF8.self)
    }

    private static func verifyNow(_ password: String, against hash: String) throws -> Bool {
        errno = 0
        let status = hash.withCString { hashText in
            withPasswordBytes(password) { password, length in
                crypto_pwhash_str_verify(hashText, password, length)
            }
        }
        if status == 0 { return true }
        // NB: libsodium sets errno to EINVAL exactly when the password doesn't match
        // (ARGON2_VERIFY_MISMATCH); other failures, such as running out of memory,
        // leave it alone. The string was checked before, so those are environment failures.
        if errno == EINVAL { return false }
        throw CryptoError(
            code: .hashingFailed,
            message: "crypto_pwhash_str_verify failed for a well-formed hash "
                + "(errno \(errno): \(String(cString: strerror(errno))))"
        )
    }

    /// Calls `body` with the password's UTF-8 bytes as a never-null C pointer and its length.
    private static func withPasswordBytes<Value>(
        _ password: String,
        _ body: (UnsafePointer<CChar>, UInt64) -> Value
    ) -> Value {
        Data(password.utf8).withNonNullBytes { bytes, count in
            UnsafeRawPointer(bytes).withMemoryRebound(to: CChar.self, capacity: max(count, 1)) {
                body($0, UInt64(count))
            }
        }
    }

    /// Rejects strings libsodium would not parse before spending memory on them.
    private static func checkWellFormed(_ hash: String) throws {
        let utf8 = hash.utf8
        guard utf8.count < crypto_pwhash_strbytes(), !utf8.contains(0),
            hash.hasPrefix("$argon2id$") || hash.hasPrefix("$argon2i$")
        else { throw invalidHash(hash) }
        // needs_rehash parses the whole string without hashing anything.
        let status = hash.withCString { crypto_pwhash_str_needs_rehash($0, 1, 8192) }
        guard status >= 0 else { throw invalidHash(hash) }
    }

    private static func invalidHash(_ hash: String) -> CryptoError {
        CryptoError(
            code: .invalidPasswordHash,
            message: "the stored password hash is not an Argon2 PHC string (starts with \(hash.prefix(10).debugDescription))"
        )
    }
}
