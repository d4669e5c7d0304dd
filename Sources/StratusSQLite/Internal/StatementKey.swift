/// The statement cache's key: the SQL text, hashed eight bytes at a time.
///
/// Every statement a store runs looks its prepared form up by its text — a few hundred bytes,
/// a dozen or more lookups per request — and `String`'s own hashing (SipHash, byte by byte) of
/// those texts cost as much as a small request's JSON. The texts are the program's own (values
/// are bound, never spliced in), so a fast non-cryptographic hash is enough; equal fingerprints
/// are still compared in full.
struct StatementKey: Hashable {
    let text: String
    private let fingerprint: UInt64

    init(_ text: String) {
        var text = text
        fingerprint = text.withUTF8 { Self.fingerprint(UnsafeRawBufferPointer($0)) }
        self.text = text
    }

    static func == (lhs: StatementKey, rhs: StatementKey) -> Bool {
        lhs.fingerprint == rhs.fingerprint && lhs.text == rhs.text
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(fingerprint)
    }

    /// A 64-bit multiply-xor hash of `bytes`, a word at a time.
    static func fingerprint(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let prime: UInt64 = 0x0000_0100_0000_01B3
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* prime
            hash ^= hash >> 29
            offset += 8
        }
        while offset < bytes.count {
            hash = (hash ^ UInt64(bytes[offset])) &* prime
            offset += 1
        }
        return hash ^ (hash >> 32)
    }
}
