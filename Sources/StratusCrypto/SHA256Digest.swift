public import Foundation

/// The 32-byte result of a SHA-256 hash.
///
/// ```swift
/// let digest = SHA256.hash(Data("abc".utf8))
/// digest.hexString  // "ba7816bf…f20015ad"
/// digest.base64     // "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="
/// ```
///
/// Equality compares in constant time, so a digest can be checked against a
/// secret-derived value without a timing side channel.
public struct SHA256Digest: Sendable, Hashable, CustomStringConvertible {
    /// The number of bytes in a SHA-256 digest.
    public static let byteCount = 32

    /// The 32 digest bytes.
    public let data: Data

    /// Wraps 32 bytes that are already a SHA-256 digest, such as a stored checksum.
    ///
    /// Fails, returning `nil`, if `data` is not exactly 32 bytes long.
    ///
    /// - Parameter data: Exactly ``byteCount`` bytes.
    public init?(_ data: Data) {
        guard data.count == Self.byteCount else { return nil }
        self.data = Data(data)
    }

    /// Wraps bytes produced by a hash; the caller guarantees the length.
    init(trusted data: Data) {
        precondition(data.count == Self.byteCount, "a SHA-256 digest has 32 bytes, got \(data.count)")
        self.data = data
    }

    /// The digest as 64 lowercase hexadecimal characters.
    public var hexString: String { Hex.encode(data) }

    /// The digest as standard, padded base64 (44 characters), the form CloudKit puts in signed messages.
    public var base64: String { data.base64EncodedString() }

    /// The digest as ``hexString``.
    public var description: String { hexString }

    /// Compares two digests in constant time.
    ///
    /// - Parameters:
    ///   - lhs: A digest.
    ///   - rhs: Another digest.
    /// - Returns: `true` if the 32 bytes are identical.
    public static func == (lhs: SHA256Digest, rhs: SHA256Digest) -> Bool {
        ConstantTime.isEqual(lhs.data, rhs.data)
    }

    /// Feeds the digest bytes into `hasher`.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(data)
    }
}
