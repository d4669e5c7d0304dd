import Foundation
import StratusCrypto
import StratusServerCrypto
import Testing

/// Verification reuses OpenSSL contexts per key: a failed check must not poison the next one,
/// and concurrent checks must not share a context.
@Suite struct SignatureVerifierReuseTests {
    @Test func goodBadAndMalformedSignaturesAlternateOnOneKey() throws {
        let key = try P256PrivateKey()
        let publicKey = key.publicKey
        let message = Data("2026-11-30T08:00:00Z:hash:/database/1/c/development/public/records/lookup".utf8)
        let good = try key.signature(for: message)
        let other = try P256PrivateKey().signature(for: message)
        for _ in 0..<3 {
            #expect(publicKey.isValidSignature(good, for: message))
            #expect(!publicKey.isValidSignature(other, for: message))
            #expect(!publicKey.isValidSignature(Data([0x30, 0x02, 0x01]), for: message))
            #expect(!publicKey.isValidSignature(good, for: message + Data("x".utf8)))
            #expect(publicKey.isValidSignature(good, for: message))
        }
    }

    @Test func concurrentVerificationsAgree() async throws {
        let key = try P256PrivateKey()
        let publicKey = key.publicKey
        let messages = (0..<32).map { Data("message \($0)".utf8) }
        let signatures = try messages.map { try key.signature(for: $0) }
        let results = await withTaskGroup(of: Bool.self) { group in
            for round in 0..<256 {
                let index = round % messages.count
                let valid = round % 3 != 0
                group.addTask {
                    let message = valid ? messages[index] : messages[(index + 1) % messages.count]
                    return publicKey.isValidSignature(signatures[index], for: message) == valid
                }
            }
            var all: [Bool] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 256)
        #expect(results.allSatisfy { $0 })
    }
}
