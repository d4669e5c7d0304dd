import Foundation
import StratusCrypto
import Testing

@Suite struct SHA256Tests {
    /// FIPS 180-2 / NIST vectors must hash to their published digests.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func oneShotHashMatchesPublishedVectors(input: String, expectedHex: String) {
        #expect(SHA256.hash(Data(input.utf8)).hexString == expectedHex)
        #expect(SHA256.hash(input).hexString == expectedHex)
    }

    /// A million 'a's fed in uneven chunks must give the NIST digest.
    @Test func incrementalHashOfAMillionAsMatchesVector() {
        var hasher = SHA256()
        let chunk = Data(repeating: UInt8(ascii: "a"), count: 999)
        var remaining = 1_000_000
        while remaining > 0 {
            let size = min(remaining, chunk.count)
            hasher.update(chunk.prefix(size))
            remaining -= size
        }
        #expect(hasher.finalize().hexString == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Incremental hashing over any split of the input must equal the one-shot hash.
    @Test func incrementalHashEqualsOneShotForAnySplit() {
        let input = Data((0..<300).map { UInt8($0 % 256) })
        let expected = SHA256.hash(input)
        for split in [0, 1, 63, 64, 65, 150, 300] {
            var hasher = SHA256()
            hasher.update(input.prefix(split))
            hasher.update(input.dropFirst(split))
            #expect(hasher.finalize() == expected, "split at \(split)")
        }
        var fromArray = SHA256()
        fromArray.update(Array(input))
        #expect(fromArray.finalize() == expected)
    }

    /// finalize() must not consume the hasher, and copies must fork the state.
    @Test func finalizeLeavesHasherUsableAndCopiesAreIndependent() {
        var hasher = SHA256()
        hasher.update(Data("ab".utf8))
        let fork = hasher
        let prefixDigest = hasher.finalize()
        hasher.update(Data("c".utf8))

        #expect(prefixDigest == SHA256.hash("ab"))
        #expect(hasher.finalize() == SHA256.hash("abc"))
        #expect(fork.finalize() == SHA256.hash("ab"))
        #expect(SHA256().finalize() == SHA256.hash(Data()))
    }

    /// The digest's encodings must agree with each other.
    @Test func digestExposesHexBase64AndBytes() throws {
        let digest = SHA256.hash("abc")
        #expect(digest.data.count == 32)
        #expect(digest.data.hex == digest.hexString)
        #expect(digest.base64 == "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=")
        #expect(digest.description == digest.hexString)
        #expect(try #require(SHA256Digest(digest.data)) == digest)
        #expect(SHA256Digest(Data(count: 31)) == nil)
        #expect(Set([digest, SHA256.hash("abc"), SHA256.hash("abd")]).count == 2)
    }
}
