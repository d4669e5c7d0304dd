import Foundation
@testable import StratusCrypto
import Testing

/// The pure-Swift key encodings the CryptoKit side reads and writes its keys with must match
/// OpenSSL byte for byte, and must refuse what OpenSSL refuses: they are built on every platform
/// so that these tests, run on Linux, check the Apple side's PEM and DER.
@Suite struct P256KeyEncodingTests {
    /// OpenSSL's SEC 1, PKCS #8 and SubjectPublicKeyInfo of one key, re-made from its scalar and point.
    @Test func encodingsAreByteForByteWhatOpenSSLWrites() throws {
        for _ in 0..<8 {
            let key = try P256PrivateKey()
            let parts = try P256KeyEncoding.privateKey(fromPEM: key.ecPEMRepresentation)
            let point = try #require(parts.point)
            #expect(parts.scalar.count == 32)
            #expect(try P256KeyEncoding.privateKey(fromPEM: key.pemRepresentation) == parts)
            #expect(PEMText.block(label: "EC PRIVATE KEY", der: P256KeyEncoding.sec1DER(scalar: parts.scalar, point: point)) == key.ecPEMRepresentation)
            #expect(PEMText.block(label: "PRIVATE KEY", der: P256KeyEncoding.pkcs8DER(scalar: parts.scalar, point: point)) == key.pemRepresentation)
            #expect(P256KeyEncoding.spkiDER(point: point) == key.publicKey.derRepresentation)
            #expect(PEMText.block(label: "PUBLIC KEY", der: P256KeyEncoding.spkiDER(point: point)) == key.publicKey.pemRepresentation)
            #expect(try P256KeyEncoding.point(fromPEM: key.publicKey.pemRepresentation) == point)
        }
    }

    /// Text around the block (the `EC PARAMETERS` block `openssl ecparam -genkey` writes first) is skipped.
    @Test func aParametersBlockBeforeTheKeyIsSkipped() throws {
        let key = try P256PrivateKey()
        let text = "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n\n" + key.ecPEMRepresentation
        #expect(try P256KeyEncoding.privateKey(fromPEM: text) == P256KeyEncoding.privateKey(fromPEM: key.ecPEMRepresentation))
    }

    /// No block, a block of another kind or base64 that does not decode: `invalidPEM`.
    @Test(arguments: [
        "hello", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
        "-----BEGIN EC PRIVATE KEY-----\n!!!!\n-----END EC PRIVATE KEY-----\n",
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n",
    ])
    func textWithoutAKeyBlockIsInvalidPEM(_ text: String) {
        do {
            _ = try P256KeyEncoding.privateKey(fromPEM: text)
            Issue.record("\(text) was accepted")
        } catch {
            #expect(error.code == .invalidPEM)
        }
    }

    /// Another curve's OID, a cut-off encoding, a wrong version or a point that is not uncompressed: `invalidKey`.
    @Test func malformedKeysAreInvalidKey() throws {
        let key = try P256PrivateKey()
        let parts = try P256KeyEncoding.privateKey(fromPEM: key.ecPEMRepresentation)
        let point = try #require(parts.point)
        let sec1 = P256KeyEncoding.sec1DER(scalar: parts.scalar, point: point)
        let secp384r1 = Data([0x2B, 0x81, 0x04, 0x00, 0x22])
        var version2 = sec1
        version2[version2.startIndex + 4] = 2
        let cases: [Data] = [
            sec1.prefix(sec1.count - 1),
            version2,
            DERReader.element(
                DERReader.Tag.sequence,
                DERReader.element(DERReader.Tag.integer, Data([1])) + DERReader.element(DERReader.Tag.octetString, parts.scalar)
                    + DERReader.element(DERReader.Tag.context0, DERReader.element(DERReader.Tag.objectIdentifier, secp384r1))),
            P256KeyEncoding.sec1DER(scalar: parts.scalar, point: Data([0x02]) + point.dropFirst()),
            sec1 + Data([0]),
        ]
        for der in cases {
            do {
                _ = try P256KeyEncoding.privateKey(fromSEC1: der)
                Issue.record("a malformed key of \(der.count) bytes was accepted")
            } catch {
                #expect(error.code == .invalidKey)
            }
        }
    }

    /// A public key that is not on P-256 or not a SubjectPublicKeyInfo is refused.
    @Test func malformedPublicKeysAreInvalidKey() throws {
        let key = try P256PrivateKey()
        let spki = key.publicKey.derRepresentation
        for der in [spki.prefix(90), spki + Data([0]), Data(repeating: 0x30, count: 91), Data()] {
            do {
                _ = try P256KeyEncoding.point(fromSPKI: der)
                Issue.record("\(der.count) bytes were accepted")
            } catch {
                #expect(error.code == .invalidKey)
            }
        }
    }
}
