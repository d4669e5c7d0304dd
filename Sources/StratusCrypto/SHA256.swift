public import Foundation

/// SHA-256, in one shot or incrementally for data that arrives in pieces.
///
/// One shot:
///
/// ```swift
/// let digest = SHA256.hash(Data("hello".utf8))
/// ```
///
/// Incrementally, for example while streaming an asset upload to disk:
///
/// ```swift
/// var hasher = SHA256()
/// for chunk in [Data("hel".utf8), Data("lo".utf8)] { hasher.update(chunk) }
/// let digest = hasher.finalize()
/// ```
///
/// `SHA256` is a value: copying a hasher part-way forks the state, and
/// ``finalize()`` leaves the hasher usable, so you can take the digest of a
/// prefix and keep going.
///
/// On Apple platforms it is CryptoKit's SHA-256; on Linux, OpenSSL's (Documentation/0014).
/// In a file that also imports CryptoKit, write `StratusCrypto.SHA256`.
///
/// Hashing never throws. OpenSSL's SHA-256 can only fail if it cannot allocate
/// a few hundred bytes for its context, which Swift treats as fatal anyway; that
/// case stops the process with a `precondition` naming OpenSSL's error text.
public struct SHA256: Sendable {
    /// The number of bytes in a digest.
    public static let byteCount = SHA256Digest.byteCount

    private var state = SHA256Backend()

    /// Creates a hasher with an empty state.
    public init() {}

    /// Hashes `data` in one call.
    ///
    /// ```swift
    /// let empty = SHA256.hash(Data()).hexString
    /// // "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// ```
    ///
    /// - Parameter data: The bytes to hash.
    /// - Returns: The 32-byte digest.
    public static func hash(_ data: Data) -> SHA256Digest {
        SHA256Digest(trusted: SHA256Backend.hash(data))
    }

    /// Hashes the UTF-8 bytes of `string`.
    ///
    /// - Parameter string: The text to hash.
    /// - Returns: The 32-byte digest.
    public static func hash(_ string: String) -> SHA256Digest {
        hash(Data(string.utf8))
    }

    /// Adds `bytes` to the data being hashed.
    ///
    /// - Parameter bytes: The next piece of input; `Data`, `[UInt8]` and raw buffers all work.
    public mutating func update(_ bytes: some ContiguousBytes) {
        bytes.withUnsafeBytes { state.update($0) }
    }

    /// Returns the digest of everything added so far; the hasher stays usable.
    ///
    /// - Returns: The 32-byte digest.
    public func finalize() -> SHA256Digest {
        SHA256Digest(trusted: state.finalize())
    }
}
