#if canImport(COpenSSL) && !canImport(CryptoKit)
internal import COpenSSL

/// SHA-256 with its context on the stack: the verifier's hot path, which hashes two short
/// messages per signed request.
///
/// Unlike ``SHA256`` (OpenSSL's EVP interface), it allocates nothing and looks nothing up in the
/// providers; for a message of a few blocks that halves the cost.
///
/// ```swift
/// var hash = StackSHA256()
/// hash.update("2016-01-25T22:15:43Z")
/// withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { hash.finalize(into: $0.baseAddress!) }
/// ```
struct StackSHA256 {
    private var context = SHA256_CTX()

    init() {
        stratus_SHA256_init(&context)
    }

    /// Hashes `count` bytes at `bytes`.
    mutating func update(_ bytes: UnsafeRawPointer, count: Int) {
        guard count > 0 else { return }
        stratus_SHA256_update(&context, bytes, count)
    }

    /// Hashes the UTF-8 bytes of `text` (without copying a native string).
    mutating func update(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            if let base = utf8.baseAddress { update(base, count: utf8.count) }
        }
    }

    /// Hashes one byte.
    mutating func update(byte: UInt8) {
        var byte = byte
        update(&byte, count: 1)
    }

    /// Writes the 32-byte digest to `digest`; the context is spent.
    mutating func finalize(into digest: UnsafeMutablePointer<UInt8>) {
        stratus_SHA256_final(&context, digest)
    }

    /// SHA-256 of `count` bytes at `bytes`, written to `digest` (32 bytes).
    static func hash(_ bytes: UnsafeRawPointer, count: Int, into digest: UnsafeMutablePointer<UInt8>) {
        var hash = StackSHA256()
        hash.update(bytes, count: count)
        hash.finalize(into: digest)
    }
}
#endif
