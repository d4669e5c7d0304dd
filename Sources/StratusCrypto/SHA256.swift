public import Foundation
internal import COpenSSL

/// SHA-256, in one shot or incrementally for data that arrives in pieces.
///
/// One shot:
///
/// ```swift
/// let digest = SHA256.hash(body)
/// ```
///
/// Incrementally, for example while streaming an asset upload to disk:
///
/// ```swift
/// var hasher = SHA256()
/// for chunk in chunks { hasher.update(chunk) }
/// let digest = hasher.finalize()
/// ```
///
/// `SHA256` is a value: copying a hasher part-way forks the state, and
/// ``finalize()`` leaves the hasher usable, so you can take the digest of a
/// prefix and keep going. Each copy owns an OpenSSL `EVP_MD_CTX`
/// (copy-on-write, freed when the last copy goes away).
///
/// Hashing never throws. OpenSSL's SHA-256 can only fail if it cannot allocate
/// a few hundred bytes for its context, which Swift treats as fatal anyway; that
/// case stops the process with a `precondition` naming OpenSSL's error text.
public struct SHA256: Sendable {
    /// The number of bytes in a digest.
    public static let byteCount = SHA256Digest.byteCount

    /// SHA-256 fetched from the default provider once: `EVP_sha256()` makes OpenSSL 3 fetch the
    /// implementation again on every one-shot digest, which cost more than hashing a short message.
    // Safety: a fetched EVP_MD is immutable and may be used from any thread; it is never freed.
    nonisolated(unsafe) private static let fetchedSHA256: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)

    private var context: DigestContext

    /// Creates a hasher with an empty state.
    public init() {
        context = DigestContext()
    }

    /// Hashes `data` in one call.
    ///
    /// ```swift
    /// SHA256.hash(Data()).hexString
    /// // "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// ```
    ///
    /// - Parameter data: The bytes to hash.
    /// - Returns: The 32-byte digest.
    public static func hash(_ data: Data) -> SHA256Digest {
        var output = Data(count: byteCount)
        var length: UInt32 = 0
        OpenSSLErrorQueue.clear()
        let status = data.withNonNullBytes { input, count in
            output.withUnsafeMutableBytes { raw -> Int32 in
                guard let out = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
                return EVP_Digest(input, count, out, &length, fetchedSHA256 ?? EVP_sha256(), nil)
            }
        }
        precondition(
            status == 1 && length == UInt32(byteCount),
            "OpenSSL EVP_Digest(SHA-256) failed: \(OpenSSLErrorQueue.drain())"
        )
        return SHA256Digest(trusted: output)
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
        if !isKnownUniquelyReferenced(&context) {
            context = DigestContext(copying: context)
        }
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0 else { return }
            context.update(base, count: raw.count)
        }
    }

    /// Returns the digest of everything added so far; the hasher stays usable.
    ///
    /// - Returns: The 32-byte digest.
    public func finalize() -> SHA256Digest {
        DigestContext(copying: context).finalize()
    }
}

/// An owned `EVP_MD_CTX` set up for SHA-256.
///
/// `SHA256.update` mutates it only after `isKnownUniquelyReferenced` proved no
/// other value (and so no other thread) can see it; shared instances are only
/// read, by `EVP_MD_CTX_copy_ex`.
// Safety: mutated only while uniquely referenced (copy-on-write); shared copies are read-only.
private final class DigestContext: @unchecked Sendable {
    private let pointer: OpaquePointer

    init() {
        OpenSSLErrorQueue.clear()
        guard let context = EVP_MD_CTX_new() else {
            preconditionFailure("OpenSSL EVP_MD_CTX_new failed: \(OpenSSLErrorQueue.drain())")
        }
        pointer = context
        let status = EVP_DigestInit_ex(context, EVP_sha256(), nil)
        precondition(status == 1, "OpenSSL EVP_DigestInit_ex(SHA-256) failed: \(OpenSSLErrorQueue.drain())")
    }

    init(copying other: DigestContext) {
        OpenSSLErrorQueue.clear()
        guard let context = EVP_MD_CTX_new() else {
            preconditionFailure("OpenSSL EVP_MD_CTX_new failed: \(OpenSSLErrorQueue.drain())")
        }
        pointer = context
        let status = EVP_MD_CTX_copy_ex(context, other.pointer)
        precondition(status == 1, "OpenSSL EVP_MD_CTX_copy_ex failed: \(OpenSSLErrorQueue.drain())")
    }

    deinit {
        EVP_MD_CTX_free(pointer)
    }

    func update(_ bytes: UnsafeRawPointer, count: Int) {
        let status = EVP_DigestUpdate(pointer, bytes, count)
        precondition(status == 1, "OpenSSL EVP_DigestUpdate failed: \(OpenSSLErrorQueue.drain())")
    }

    /// Ends this context; call it only on a private copy.
    func finalize() -> SHA256Digest {
        var output = Data(count: SHA256Digest.byteCount)
        var length: UInt32 = 0
        let status = output.withUnsafeMutableBytes { raw -> Int32 in
            guard let out = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
            return EVP_DigestFinal_ex(pointer, out, &length)
        }
        precondition(
            status == 1 && length == UInt32(SHA256Digest.byteCount),
            "OpenSSL EVP_DigestFinal_ex failed: \(OpenSSLErrorQueue.drain())"
        )
        return SHA256Digest(trusted: output)
    }
}
