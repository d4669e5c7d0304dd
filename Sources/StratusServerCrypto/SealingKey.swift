public import Foundation
import StratusCrypto
internal import CSodium

/// A secret key that seals short messages so they are unreadable and tamper-evident:
/// XChaCha20-Poly1305, libsodium's `crypto_aead_xchacha20poly1305_ietf`.
///
/// A sealed box is `nonce ‖ ciphertext ‖ tag`: a fresh random 24-byte nonce, the
/// message encrypted, and a 16-byte Poly1305 tag over the ciphertext and the
/// associated data, so a box is ``overhead`` (40) bytes longer than its message.
/// Opening checks the tag first: a box that was altered, truncated, sealed under
/// another key or with other associated data fails and yields nothing.
///
/// The 192-bit nonce is why this cipher and not AES-GCM: random nonces stay safe for
/// any number of boxes under one key, where GCM's 96-bit nonces must not pass about
/// 2³² messages per key. Keys for separate uses come from one secret with
/// ``init(derivingFrom:label:)`` (HKDF-SHA256), so a box sealed for one use never
/// opens as another.
///
/// ``sealDeterministically(_:associatedData:)`` takes the nonce from an HMAC of the
/// message and associated data instead (a synthetic nonce, as in SIV modes): equal
/// messages give equal boxes, different ones different nonces, and nothing else is
/// revealed. Use it where equal values must give equal tokens (a sync token after no
/// change equals the one sent).
///
/// ```swift
/// let key = SealingKey(derivingFrom: serverSecret, label: "stratus token: zone sync")
/// let box = key.seal(Data(#"{"z":4,"s":17}"#.utf8), associatedData: Data([1]))
/// let position = try key.open(box, associatedData: Data([1]))
/// ```
///
/// Sealing never throws: libsodium's encryption cannot fail for a valid key, and its
/// one-time initialisation fails only without a system random source, which stops the
/// process with a `precondition`.
public struct SealingKey: Sendable, CustomStringConvertible {
    /// The bytes of a key.
    public static let keyByteCount = 32
    /// The bytes of the nonce at the start of a box.
    public static let nonceByteCount = 24
    /// The bytes of the authentication tag at the end of a box.
    public static let tagByteCount = 16
    /// How much longer a box is than its message.
    public static let overhead = nonceByteCount + tagByteCount

    private let key: [UInt8]
    /// The HMAC key of synthetic nonces, derived from ``key``.
    private let nonceKey: Data

    /// Uses 32 bytes as the key.
    ///
    /// - Parameter rawKey: The key; exactly ``keyByteCount`` bytes of secret randomness.
    /// - Throws: ``CryptoError`` with ``CryptoError/Code/invalidKey`` for a key of another length.
    public init(rawKey: Data) throws {
        guard rawKey.count == Self.keyByteCount else {
            throw CryptoError(code: .invalidKey, message: "a sealing key has \(Self.keyByteCount) bytes, not \(rawKey.count)")
        }
        key = Array(rawKey)
        nonceKey = Self.nonceKey(for: rawKey)
    }

    /// Derives the key of one use from a secret: HKDF-SHA256 with `label` as its info.
    ///
    /// - Parameters:
    ///   - secret: The secret, such as a server's token secret; at least 32 random bytes for full strength.
    ///   - label: What the key is for; each use gets its own label and therefore its own key.
    public init(derivingFrom secret: Data, label: String) {
        let derived = HKDFSHA256.deriveKey(from: secret, salt: Data("stratus sealing key".utf8), info: Data(label.utf8), byteCount: Self.keyByteCount)
        key = Array(derived)
        nonceKey = Self.nonceKey(for: derived)
    }

    private static func nonceKey(for key: Data) -> Data {
        HKDFSHA256.deriveKey(from: key, info: Data("synthetic nonce".utf8), byteCount: HMACSHA256.byteCount)
    }

    /// Seals `message` under a fresh random nonce.
    ///
    /// - Parameters:
    ///   - message: What to hide; any length.
    ///   - associatedData: What the box is bound to without carrying it (a version, a kind); empty by default.
    /// - Returns: `nonce ‖ ciphertext ‖ tag`, ``overhead`` bytes longer than `message`.
    public func seal(_ message: Data, associatedData: Data = Data()) -> Data {
        Self.initializeSodium()
        var nonce = [UInt8](repeating: 0, count: Self.nonceByteCount)
        // > randombytes_buf() fills size bytes starting at buf with an unpredictable sequence of bytes.
        randombytes_buf(&nonce, nonce.count)
        return seal(message, associatedData: associatedData, nonce: nonce)
    }

    /// Seals `message` under a nonce derived from it: the same message and associated data always
    /// give the same box.
    ///
    /// The nonce is the first 24 bytes of HMAC-SHA256, under a key derived from this one, of the
    /// associated data's length, the associated data and the message; two different inputs share
    /// a nonce only if that HMAC collides. A box shows that two messages are equal, nothing more.
    ///
    /// - Parameters:
    ///   - message: What to hide; any length.
    ///   - associatedData: What the box is bound to without carrying it; empty by default.
    /// - Returns: `nonce ‖ ciphertext ‖ tag`, ``overhead`` bytes longer than `message`, opened by ``open(_:associatedData:)``.
    public func sealDeterministically(_ message: Data, associatedData: Data = Data()) -> Data {
        let length = withUnsafeBytes(of: UInt64(associatedData.count).bigEndian) { Data($0) }
        let input = length + associatedData + message
        let nonce = HMACSHA256.authenticationCode(for: input, key: nonceKey).prefix(Self.nonceByteCount)
        return seal(message, associatedData: associatedData, nonce: Array(nonce))
    }

    /// Seals with a given nonce, for known-answer tests only: a nonce must never be used twice.
    func seal(_ message: Data, associatedData: Data, nonce: [UInt8]) -> Data {
        precondition(nonce.count == Self.nonceByteCount, "an XChaCha20-Poly1305 nonce has \(Self.nonceByteCount) bytes, not \(nonce.count)")
        Self.initializeSodium()
        var box = nonce + [UInt8](repeating: 0, count: message.count + Self.tagByteCount)
        var length: UInt64 = 0
        let status = message.withNonNullBytes { messageBytes, messageCount in
            associatedData.withNonNullBytes { dataBytes, dataCount in
                box.withUnsafeMutableBufferPointer { output -> Int32 in
                    guard let base = output.baseAddress else { return -1 }
                    // > crypto_aead_xchacha20poly1305_ietf_encrypt() ... always returns 0.
                    return crypto_aead_xchacha20poly1305_ietf_encrypt(
                        base + Self.nonceByteCount, &length, messageBytes, UInt64(messageCount), dataBytes, UInt64(dataCount), nil, nonce, key
                    )
                }
            }
        }
        precondition(status == 0 && length == UInt64(message.count + Self.tagByteCount), "XChaCha20-Poly1305 sealing failed (status \(status))")
        return Data(box)
    }

    /// Opens a box sealed under this key with the same associated data.
    ///
    /// - Parameters:
    ///   - box: `nonce ‖ ciphertext ‖ tag`, as ``seal(_:associatedData:)`` made it.
    ///   - associatedData: The associated data it was sealed with.
    /// - Returns: The message.
    /// - Throws: ``CryptoError`` with ``CryptoError/Code/authenticationFailed`` when the box is too short,
    ///   was altered, or was sealed under another key or with other associated data.
    public func open(_ box: Data, associatedData: Data = Data()) throws -> Data {
        guard box.count >= Self.overhead else {
            throw CryptoError(code: .authenticationFailed, message: "a sealed box has at least \(Self.overhead) bytes; this one has \(box.count)")
        }
        Self.initializeSodium()
        let bytes = Array(box)
        // NB: one spare byte, so the output pointer is never NULL for an empty message.
        var message = [UInt8](repeating: 0, count: bytes.count - Self.overhead + 1)
        var length: UInt64 = 0
        let status = associatedData.withNonNullBytes { dataBytes, dataCount in
            bytes.withUnsafeBufferPointer { input -> Int32 in
                message.withUnsafeMutableBufferPointer { output -> Int32 in
                    guard let source = input.baseAddress, let target = output.baseAddress else { return -1 }
                    // > crypto_aead_xchacha20poly1305_ietf_decrypt() ... returns -1 if the verification fails.
                    return crypto_aead_xchacha20poly1305_ietf_decrypt(
                        target, &length, nil, source + Self.nonceByteCount, UInt64(input.count - Self.nonceByteCount),
                        dataBytes, UInt64(dataCount), source, key
                    )
                }
            }
        }
        guard status == 0 else {
            throw CryptoError(code: .authenticationFailed, message: "the sealed box does not authenticate: it was altered or sealed under another key")
        }
        return Data(message.prefix(Int(length)))
    }

    /// `SealingKey(<secret>)`: never the key.
    public var description: String { "SealingKey(<secret>)" }

    private static func initializeSodium() {
        do {
            try Sodium.ensureInitialized()
        } catch {
            preconditionFailure("libsodium could not be initialised, so nothing can be sealed: \(error)")
        }
    }
}
