public import Foundation
import StratusCrypto

#if canImport(COpenSSL) && !canImport(CryptoKit)
internal import COpenSSL
#endif

/// HMAC-SHA256 under one fixed key, for codes made or checked on every request (web auth tokens).
///
/// HMAC hashes the key, padded to a block, in front of the message, and again in front of the
/// inner digest. This type hashes those two padded blocks once, when it is made, and starts every
/// code from copies of the two SHA-256 states, on the stack: a code of a short message then costs
/// three SHA-256 compressions and no allocation. ``HMACSHA256`` (OpenSSL's one-shot `HMAC()`)
/// fetches the algorithm from OpenSSL's providers, allocates a context and hashes both padded
/// blocks again on every call. The codes are the same (RFC 2104).
///
/// ```swift
/// let tagKey = HMACSHA256Key(Data("a key derived from the server secret".utf8))
/// let tag = tagKey.authenticationCode(for: Data("payload".utf8))
/// let genuine = tagKey.isValidAuthenticationCode(tag, for: Data("payload".utf8))
/// ```
public struct HMACSHA256Key: Sendable {
    private let states: PaddedKeyStates

    /// Prepares `key` for HMAC-SHA256.
    ///
    /// - Parameter key: The secret key; any length (keys longer than 64 bytes are hashed first, per RFC 2104).
    public init(_ key: Data) {
        states = PaddedKeyStates(key)
    }

    /// Writes the 32-byte HMAC-SHA256 of `message` to `code`.
    ///
    /// - Parameters:
    ///   - message: The bytes to authenticate.
    ///   - code: Where the code goes; at least ``HMACSHA256/byteCount`` bytes.
    public func authenticationCode(for message: UnsafeRawBufferPointer, into code: UnsafeMutableRawBufferPointer) {
        precondition(code.count >= HMACSHA256.byteCount, "an HMAC-SHA256 code needs \(HMACSHA256.byteCount) bytes, not \(code.count)")
        states.code(for: message, into: code)
    }

    /// The 32-byte HMAC-SHA256 of `message`.
    ///
    /// - Parameter message: The bytes to authenticate.
    /// - Returns: The code.
    public func authenticationCode(for message: Data) -> Data {
        var code = Data(count: HMACSHA256.byteCount)
        message.withUnsafeBytes { bytes in
            code.withUnsafeMutableBytes { authenticationCode(for: bytes, into: $0) }
        }
        return code
    }

    /// Whether `code` is the HMAC-SHA256 of `message`, compared in constant time.
    ///
    /// - Parameters:
    ///   - code: The code that came with the message, such as the tail of a token.
    ///   - message: The bytes it claims to authenticate.
    /// - Returns: `true` if `code` has 32 bytes and is the code of `message` under this key.
    public func isValidAuthenticationCode(_ code: UnsafeRawBufferPointer, for message: UnsafeRawBufferPointer) -> Bool {
        guard code.count == HMACSHA256.byteCount else { return false }
        return withUnsafeTemporaryAllocation(byteCount: HMACSHA256.byteCount, alignment: 16) { expected in
            states.code(for: message, into: expected)
            var difference: UInt8 = 0
            for index in 0..<HMACSHA256.byteCount { difference |= expected[index] ^ code[index] }
            return difference == 0
        }
    }

    /// Whether `code` is the HMAC-SHA256 of `message`, compared in constant time.
    ///
    /// - Parameters:
    ///   - code: The code that came with the message.
    ///   - message: The bytes it claims to authenticate.
    /// - Returns: `true` if `code` is the code of `message` under this key.
    public func isValidAuthenticationCode(_ code: Data, for message: Data) -> Bool {
        code.withUnsafeBytes { code in message.withUnsafeBytes { isValidAuthenticationCode(code, for: $0) } }
    }
}

#if canImport(COpenSSL) && !canImport(CryptoKit)
/// The SHA-256 states after the key's inner and outer padded blocks; never changed after `init`.
private final class PaddedKeyStates: Sendable {
    private static let blockSize = 64
    private let inner: SHA256_CTX
    private let outer: SHA256_CTX

    init(_ key: Data) {
        var block = [UInt8](repeating: 0, count: Self.blockSize)
        if key.count > Self.blockSize {
            block.replaceSubrange(0..<SHA256Digest.byteCount, with: SHA256.hash(key).data)
        } else {
            block.replaceSubrange(0..<key.count, with: key)
        }
        inner = Self.state(after: block.map { $0 ^ 0x36 })
        outer = Self.state(after: block.map { $0 ^ 0x5C })
    }

    private static func state(after paddedKey: [UInt8]) -> SHA256_CTX {
        var context = SHA256_CTX()
        stratus_SHA256_init(&context)
        paddedKey.withUnsafeBytes { stratus_SHA256_update(&context, $0.baseAddress, $0.count) }
        return context
    }

    func code(for message: UnsafeRawBufferPointer, into code: UnsafeMutableRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: HMACSHA256.byteCount) { innerDigest in
            guard let digest = innerDigest.baseAddress, let output = code.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            var context = inner
            if let bytes = message.baseAddress, message.count > 0 { stratus_SHA256_update(&context, bytes, message.count) }
            stratus_SHA256_final(&context, digest)
            context = outer
            stratus_SHA256_update(&context, digest, HMACSHA256.byteCount)
            stratus_SHA256_final(&context, output)
        }
    }
}
#else
/// The key itself, for ``HMACSHA256`` (CryptoKit), where no padded state is kept.
private final class PaddedKeyStates: Sendable {
    private let key: Data

    init(_ key: Data) {
        self.key = key
    }

    func code(for message: UnsafeRawBufferPointer, into code: UnsafeMutableRawBufferPointer) {
        let result = HMACSHA256.authenticationCode(for: Data(message), key: key)
        result.withUnsafeBytes { code.copyMemory(from: $0) }
    }
}
#endif
