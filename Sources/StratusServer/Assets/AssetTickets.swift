import Foundation
import StratusCrypto

/// What an upload URL grants: one upload, of at most `b` bytes, into a container environment by
/// a user, until it expires. Each URL has a nonce of its own and is spent by its first complete
/// upload (``UploadTicketLedger``).
struct AssetUploadTicket: Codable, Hashable {
    /// The container.
    var c: String
    /// The environment.
    var e: String
    /// The uploader's user record name.
    var u: String
    /// Expiry, in milliseconds since 1970.
    var x: Int64
    /// The database the URL was asked for (`public`, `private`), whose quota bounded `b`.
    var d: String
    /// The most bytes the upload may have: the size limit, or the room left in the quota when the
    /// URL was issued if that is less.
    var b: Int64
    /// A random nonce naming this URL.
    var n: String
}

/// What a receipt proves: this user uploaded this content to this container environment.
struct AssetReceipt: Codable, Hashable {
    /// The content key.
    var k: String
    /// The size in bytes.
    var s: Int64
    /// The container.
    var c: String
    /// The environment.
    var e: String
    /// The uploader's user record name.
    var u: String
}

/// What a download URL grants: reading one content until it expires.
struct AssetDownloadTicket: Codable, Hashable {
    /// The content key.
    var k: String
    /// Expiry, in milliseconds since 1970.
    var x: Int64
}

/// Content keys and the checksums clients see.
///
/// The key is the hex of the first 20 bytes of the content's SHA-256; the
/// `fileChecksum` is those bytes behind a `0x01` prefix, in base64 — the shape
/// Apple's checksums have (Apple's CloudKit Web Services Reference: “Asset dictionary”). Same bytes, same key and checksum.
enum AssetChecksum {
    /// The content key of `data`.
    static func key(of data: Data) -> String {
        key(of: SHA256.hash(data))
    }

    /// The content key of content with this SHA-256 digest.
    static func key(of digest: SHA256Digest) -> String {
        String(digest.hexString.prefix(40))
    }

    /// The `fileChecksum` of a content key.
    static func fileChecksum(forKey key: String) -> String {
        var bytes = Data([1])
        bytes.append(contentsOf: hexBytes(key))
        return bytes.base64EncodedString()
    }

    /// The content key a `fileChecksum` names, or `nil` when it is not one of ours.
    static func key(forFileChecksum checksum: String) -> String? {
        guard let bytes = Data(base64Encoded: checksum), bytes.count == 21, bytes.first == 1 else { return nil }
        return bytes.dropFirst().map { String(format: "%02x", $0) }.joined()
    }

    /// A per-content opaque value for `referenceChecksum` and `wrappingKey`, which Stratus does not use.
    static func opaque(_ label: String, key: String) -> String {
        var bytes = Data([1])
        bytes.append(SHA256.hash(label + key).data.prefix(20))
        return bytes.base64EncodedString()
    }

    private static func hexBytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var iterator = hex.utf8.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            guard let h = nibble(high), let l = nibble(low) else { return [] }
            bytes.append(h << 4 | l)
        }
        return bytes
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
