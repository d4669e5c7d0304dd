import Foundation
import StratusCrypto
import StratusServerCrypto
import Testing

@Suite struct P256KeyTests {
    let message = Data("hello, stratus".utf8)

    /// A generated key signs, and its public key verifies, a DER signature.
    @Test func generatedKeySignsAndVerifies() throws {
        let key = try P256PrivateKey()
        let signature = try key.signature(for: message)
        #expect(signature.first == 0x30, "DER SEQUENCE")
        #expect((8...72).contains(signature.count))
        #expect(key.publicKey.isValidSignature(signature, for: message))
        #expect(!key.publicKey.isValidSignature(signature, for: message.dropLast()))
        #expect(try key.signature(for: message) != signature, "ECDSA is randomized")
        #expect(try P256PrivateKey().publicKey != key.publicKey)
    }

    /// Empty messages can be signed and verified.
    @Test func emptyMessageSignsAndVerifies() throws {
        let key = try P256PrivateKey()
        let signature = try key.signature(for: Data())
        #expect(key.publicKey.isValidSignature(signature, for: Data()))
        #expect(!key.publicKey.isValidSignature(signature, for: Data([0])))
    }

    /// Private keys round-trip through both PEM forms; public keys through PEM and DER.
    @Test func pemAndDERRoundTrip() throws {
        let key = try P256PrivateKey()
        #expect(key.pemRepresentation.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(key.pemRepresentation.hasSuffix("-----END PRIVATE KEY-----\n"))
        #expect(key.ecPEMRepresentation.hasPrefix("-----BEGIN EC PRIVATE KEY-----\n"))

        let fromPKCS8 = try P256PrivateKey(pemRepresentation: key.pemRepresentation)
        let fromSEC1 = try P256PrivateKey(pemRepresentation: key.ecPEMRepresentation)
        #expect(fromPKCS8.publicKey == key.publicKey)
        #expect(fromSEC1.publicKey == key.publicKey)
        #expect(fromPKCS8.pemRepresentation == key.pemRepresentation)
        #expect(fromSEC1.ecPEMRepresentation == key.ecPEMRepresentation)
        #expect(key.publicKey.isValidSignature(try fromSEC1.signature(for: message), for: message))

        let publicPEM = key.publicKey.pemRepresentation
        #expect(publicPEM.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
        #expect(try P256PublicKey(pemRepresentation: publicPEM) == key.publicKey)
        #expect(key.publicKey.derRepresentation.count == 91)
        #expect(try P256PublicKey(derRepresentation: key.publicKey.derRepresentation) == key.publicKey)
    }

    /// The fixture key's public half derived in Swift equals openssl's `-pubout` output.
    @Test func derivedPublicKeyMatchesOpenSSLOutput() throws {
        let key = try P256PrivateKey(pemRepresentation: Fixtures.privateKeyPEM)
        #expect(key.publicKey.pemRepresentation == Fixtures.publicKeyPEM)
        #expect(key.ecPEMRepresentation == Fixtures.privateKeyPEM)
    }

    /// Pasted PEM with surrounding whitespace or text still reads.
    @Test func pemWithSurroundingTextIsAccepted() throws {
        let padded = "\n\n  Key for prod:\n" + Fixtures.publicKeyPEM + "\n\n"
        #expect(try P256PublicKey(pemRepresentation: padded) == P256PublicKey(pemRepresentation: Fixtures.publicKeyPEM))
    }

    /// Text that isn't the right PEM block fails with invalidPEM and a message naming the expected block.
    @Test(arguments: [
        "",
        "hello",
        "-----BEGIN PUBLIC KEY-----\nnot base64 at all\n-----END PUBLIC KEY-----\n",
        "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEeHj/hrbHc4buUNDIqyq5Qzr7Qvyj\n-----END PUBLIC KEY-----\n",
        Fixtures.privateKeyPEM,
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
    ])
    func badPublicPEMThrowsInvalidPEM(text: String) throws {
        let error = try #require(throws: CryptoError.self) { try P256PublicKey(pemRepresentation: text) }
        #expect(error.code == .invalidPEM)
        #expect(error.message.contains("PUBLIC KEY"))
    }

    /// Text that isn't a private key PEM fails with invalidPEM.
    @Test(arguments: [
        "",
        Fixtures.publicKeyPEM,
        "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n",
        "-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----\n",
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n",
    ])
    func badPrivatePEMThrowsInvalidPEM(text: String) throws {
        let error = try #require(throws: CryptoError.self) { try P256PrivateKey(pemRepresentation: text) }
        #expect(error.code == .invalidPEM)
        #expect(error.message.contains("PRIVATE KEY"))
    }

    /// A decoding failure carries OpenSSL's error queue text.
    @Test func decodingFailureCarriesOpenSSLErrors() throws {
        let text = "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"
        let error = try #require(throws: CryptoError.self) { try P256PublicKey(pemRepresentation: text) }
        #expect(!error.openSSLErrors.isEmpty)
        #expect(error.description.contains("OpenSSL"))
    }

    /// Garbage DER public keys fail with invalidKey.
    @Test func badDERPublicKeyThrowsInvalidKey() throws {
        for bytes in [Data(), Data([0x30, 0x00]), Data(repeating: 0x41, count: 91)] {
            let error = try #require(throws: CryptoError.self) { try P256PublicKey(derRepresentation: bytes) }
            #expect(error.code == .invalidKey)
        }
    }

    /// Random, truncated, or bit-flipped signatures are rejected without crashing.
    @Test func garbageSignaturesAreRejected() throws {
        let key = try P256PrivateKey()
        let signature = try key.signature(for: message)
        var candidates: [Data] = [Data(), Data([0x30]), signature.dropLast(), signature + Data([0]), Data(count: 64)]
        for _ in 0..<20 { candidates.append(try SecureRandom.bytes(count: Int.random(in: 1...100))) }
        for index in signature.indices {
            var flipped = signature
            flipped[index] ^= 0x01
            candidates.append(flipped)
        }
        for candidate in candidates {
            #expect(!key.publicKey.isValidSignature(candidate, for: message))
        }
        // A failed verification leaves nothing behind that would break the next operation.
        #expect(key.publicKey.isValidSignature(signature, for: message))
    }

    /// Descriptions never reveal private key material.
    @Test func descriptionsAreRedacted() throws {
        let key = try P256PrivateKey(pemRepresentation: Fixtures.privateKeyPEM)
        let text = String(describing: key)
        #expect(text.contains("<redacted>"))
        #expect(!text.contains("MHcCAQEEIEviiYwsIH"))
        #expect(String(describing: key.publicKey).hasPrefix("P256PublicKey(sha256:"))
    }

    /// Keys are Sendable and usable from many tasks at once.
    @Test func keysAreUsableConcurrently() async throws {
        let key = try P256PrivateKey()
        let message = self.message
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    let signature = try key.signature(for: message)
                    return key.publicKey.isValidSignature(signature, for: message)
                }
            }
            for try await valid in group { #expect(valid) }
        }
    }
}
