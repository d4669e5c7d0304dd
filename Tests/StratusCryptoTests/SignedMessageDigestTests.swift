import Foundation
import StratusCrypto
@testable import StratusServerCrypto
import Testing

/// The verifier's allocation-free pieces agree with the plain ones they replace.
@Suite struct SignedMessageDigestTests {
    private func bytes(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    private func digest(_ body: (UnsafeMutablePointer<UInt8>) -> Void) -> Data {
        var output = Data(count: SHA256Digest.byteCount)
        output.withUnsafeMutableBytes { body($0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
        return output
    }

    /// Every padding case (length mod 3) and the 32-byte digest the verifier encodes.
    @Test func base64MatchesFoundationForEveryLengthUpTo70() {
        for count in 0...70 {
            let input = bytes(count, seed: UInt8(count))
            var output = [UInt8](repeating: 0, count: 4 * ((count + 2) / 3))
            let written = input.withUnsafeBufferPointer { source in
                output.withUnsafeMutableBufferPointer { target -> Int in
                    guard let from = source.baseAddress, let to = target.baseAddress else { return 0 }
                    return Base64Text.encode(from, count: count, into: to)
                }
            }
            #expect(written == output.count)
            #expect(String(decoding: output, as: UTF8.self) == Data(input).base64EncodedString(), "length \(count)")
        }
    }

    /// Lengths around the 64-byte block and the 55/56-byte padding boundary, in one piece and
    /// split across the three ways of feeding it (pointer, single bytes, string).
    @Test(arguments: [0, 1, 3, 55, 56, 63, 64, 65, 119, 120, 1000])
    func stackSHA256MatchesSHA256(count: Int) {
        // Printable ASCII, so the string piece hashes exactly these bytes.
        let input = (0..<count).map { UInt8(32 + ($0 &* 31 &+ 7) % 95) }
        let expected = SHA256.hash(Data(input)).data
        let oneShot = digest { out in
            Data(input).withNonNullBytes { bytes, count in StackSHA256.hash(bytes, count: count, into: out) }
        }
        #expect(oneShot == expected)
        let cut = count / 3
        let split = digest { out in
            var hash = StackSHA256()
            input.withUnsafeBytes { raw in
                if cut > 0, let base = raw.baseAddress { hash.update(base, count: cut) }
            }
            for byte in input[cut..<(2 * cut)] { hash.update(byte: byte) }
            hash.update(String(decoding: input[(2 * cut)...], as: UTF8.self))
            hash.finalize(into: out)
        }
        #expect(split == expected)
    }

    /// The streamed digest is the SHA-256 of the message text, in every body-hash form.
    @Test(arguments: [
        ("2016-01-25T22:15:43Z", #"{"records":[{"recordName":"bench"}]}"#, "/database/1/iCloud.c/development/public/records/lookup"),
        ("2016-01-25T22:15:43Z", "", "/database/1/iCloud.c/development/public/zones/list"),
        ("x", "ünïcødé body", "/database/1/c/a%20b/é"),
    ])
    func messageDigestIsTheHashOfTheMessage(date: String, body: String, path: String) {
        let body = Data(body.utf8)
        let message = ServerToServerSignature.message(date: date, body: body, path: path)
        let streamed = digest { ServerToServerSignature.messageDigest(date: date, body: body, path: path, into: $0) }
        #expect(streamed == SHA256.hash(Data(message.utf8)).data)
        let hashedEmpty = digest { ServerToServerSignature.messageDigest(date: date, body: body, emptyBodyHashed: true, path: path, into: $0) }
        let withHash = "\(date):\(SHA256.hash(body).base64):\(path)"
        #expect(hashedEmpty == SHA256.hash(Data(withHash.utf8)).data)
    }

    /// A malformed signature is `false` and leaves nothing in OpenSSL's error queue for the next caller.
    @Test func malformedSignaturesLeaveTheErrorQueueEmpty() throws {
        let key = try P256PrivateKey()
        let message = Data("2026-11-30T08:00:00Z::/database/1/c/development/public/zones/list".utf8)
        for garbage in [Data([0x30, 0x02, 0x01]), Data(repeating: 0xFF, count: 72), Data([0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00])] {
            #expect(!key.publicKey.isValidSignature(garbage, for: message))
            #expect(OpenSSLErrorQueue.drain().isEmpty)
        }
        #expect(key.publicKey.isValidSignature(try key.signature(for: message), for: message))
    }
}
