#if canImport(COpenSSL) && !canImport(CryptoKit)
import Foundation
internal import COpenSSL

/// SHA-256 through OpenSSL 3's EVP interface: the Linux side of ``SHA256``.
///
/// The same interface as the CryptoKit side (`Backends/CryptoKit/CryptoKitSHA256.swift`). Each
/// copy owns an `EVP_MD_CTX` (copy-on-write, freed when the last copy goes away), so copying a
/// hasher part-way forks the state as a value should.
struct SHA256Backend: Sendable {
    /// SHA-256 fetched from the default provider once: `EVP_sha256()` makes OpenSSL 3 fetch the
    /// implementation again on every one-shot digest, which cost more than hashing a short message.
    // Safety: a fetched EVP_MD is immutable and may be used from any thread; it is never freed.
    nonisolated(unsafe) private static let fetchedSHA256: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)

    private var context = DigestContext()

    /// An empty state.
    init() {}

    /// Adds bytes to the state.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        if !isKnownUniquelyReferenced(&context) {
            context = DigestContext(copying: context)
        }
        context.update(base, count: bytes.count)
    }

    /// The digest of everything added so far; the state stays usable.
    func finalize() -> Data {
        DigestContext(copying: context).finalize()
    }

    /// The digest of `data` in one call.
    static func hash(_ data: Data) -> Data {
        var output = Data(count: SHA256Digest.byteCount)
        var length: UInt32 = 0
        OpenSSLErrorQueue.clear()
        let status = data.withNonNullBytes { input, count in
            output.withUnsafeMutableBytes { raw -> Int32 in
                guard let out = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
                return EVP_Digest(input, count, out, &length, fetchedSHA256 ?? EVP_sha256(), nil)
            }
        }
        precondition(
            status == 1 && length == UInt32(SHA256Digest.byteCount),
            "OpenSSL EVP_Digest(SHA-256) failed: \(OpenSSLErrorQueue.drain())"
        )
        return output
    }
}

/// An owned `EVP_MD_CTX` set up for SHA-256.
///
/// `SHA256Backend.update` mutates it only after `isKnownUniquelyReferenced` proved no other value
/// (and so no other thread) can see it; shared instances are only read, by `EVP_MD_CTX_copy_ex`.
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
    func finalize() -> Data {
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
        return output
    }
}
#endif
