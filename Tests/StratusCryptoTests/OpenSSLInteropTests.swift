import Foundation
import StratusCrypto
import StratusServerCrypto
import Testing

/// Keys and signatures must interoperate with the `openssl` command line in both directions,
/// since developers make server-to-server keys with it (Apple's CloudKit Web Services Reference: “Server-to-server keys”).
@Suite(.enabled(if: OpenSSLCommandLine.isAvailable, "needs /usr/bin/openssl"))
struct OpenSSLInteropTests {
    let message = Data(
        "2016-01-25T22:15:43Z:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:/database/1/iCloud.com.example/development/public/records/query"
            .utf8)

    /// A signature made by `openssl dgst -sha256 -sign` must verify with both the openssl-derived and the Swift-derived public key.
    @Test func opensslSignatureVerifiesInSwift() throws {
        let cli = try OpenSSLCommandLine()
        try cli.runChecked(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "k.pem"])
        try cli.runChecked(["ec", "-in", "k.pem", "-pubout", "-out", "pub.pem"])
        try cli.write(message, to: "msg")
        try cli.runChecked(["dgst", "-sha256", "-sign", "k.pem", "-out", "sig.der", "msg"])

        let privatePEM = String(decoding: try cli.read("k.pem"), as: UTF8.self)
        #expect(privatePEM.hasPrefix("-----BEGIN EC PRIVATE KEY-----"))
        let privateKey = try P256PrivateKey(pemRepresentation: privatePEM)
        let opensslPublicKey = try P256PublicKey(pemRepresentation: String(decoding: try cli.read("pub.pem"), as: UTF8.self))
        let signature = try cli.read("sig.der")

        #expect(opensslPublicKey.isValidSignature(signature, for: message))
        #expect(privateKey.publicKey.isValidSignature(signature, for: message))
        #expect(privateKey.publicKey == opensslPublicKey)
        #expect(!opensslPublicKey.isValidSignature(signature, for: message + Data("x".utf8)))
    }

    /// A signature made in Swift must print "Verified OK" with `openssl dgst -verify`.
    @Test func swiftSignatureVerifiesWithOpenSSL() throws {
        let cli = try OpenSSLCommandLine()
        let key = try P256PrivateKey()
        try cli.write(Data(key.publicKey.pemRepresentation.utf8), to: "pub.pem")
        try cli.write(message, to: "msg")
        try cli.write(try key.signature(for: message), to: "sig.der")

        let result = try cli.run(["dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig.der", "msg"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("Verified OK"))

        try cli.write(message + Data("tampered".utf8), to: "msg2")
        let tampered = try cli.run(["dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig.der", "msg2"])
        #expect(tampered.status != 0)
        #expect(tampered.standardOutput.contains("Verification failure"))
    }

    /// Keys Swift exports (PKCS #8 and SEC 1) must be readable by openssl, which must derive the same public key.
    @Test func swiftExportedKeysReadInOpenSSL() throws {
        let cli = try OpenSSLCommandLine()
        let key = try P256PrivateKey()
        for (name, pem) in [("pkcs8.pem", key.pemRepresentation), ("sec1.pem", key.ecPEMRepresentation)] {
            try cli.write(Data(pem.utf8), to: name)
            let publicPEM = try cli.runChecked(["ec", "-in", name, "-pubout"]).standardOutput
            #expect(try P256PublicKey(pemRepresentation: publicPEM) == key.publicKey, "\(name)")
        }
        let text = try cli.runChecked(["ec", "-in", "sec1.pem", "-noout", "-text"]).standardOutput
        #expect(text.contains("prime256v1") || text.contains("P-256"))
    }

    /// A PKCS #8 key written by openssl and an `ecparam -genkey` file that still holds its EC PARAMETERS block must both be read.
    @Test func opensslPKCS8AndParameterPrefixedKeysAreAccepted() throws {
        let cli = try OpenSSLCommandLine()
        try cli.runChecked(["ecparam", "-name", "prime256v1", "-genkey", "-out", "with-params.pem"])
        try cli.runChecked(["pkcs8", "-topk8", "-nocrypt", "-in", "with-params.pem", "-out", "pkcs8.pem"])
        let withParams = String(decoding: try cli.read("with-params.pem"), as: UTF8.self)
        #expect(withParams.contains("-----BEGIN EC PARAMETERS-----"))
        let pkcs8 = String(decoding: try cli.read("pkcs8.pem"), as: UTF8.self)
        #expect(pkcs8.hasPrefix("-----BEGIN PRIVATE KEY-----"))

        let a = try P256PrivateKey(pemRepresentation: withParams)
        let b = try P256PrivateKey(pemRepresentation: pkcs8)
        #expect(a.publicKey == b.publicKey)
    }

    /// Keys on other curves, and non-EC keys, must be rejected with invalidKey.
    @Test func keysOnOtherCurvesOrAlgorithmsAreRejected() throws {
        let cli = try OpenSSLCommandLine()
        try cli.runChecked(["ecparam", "-name", "secp384r1", "-genkey", "-noout", "-out", "p384.pem"])
        try cli.runChecked(["ec", "-in", "p384.pem", "-pubout", "-out", "p384pub.pem"])
        try cli.runChecked(["genpkey", "-algorithm", "ed25519", "-out", "ed.pem"])

        let p384 = String(decoding: try cli.read("p384.pem"), as: UTF8.self)
        let p384Public = String(decoding: try cli.read("p384pub.pem"), as: UTF8.self)
        let ed25519 = String(decoding: try cli.read("ed.pem"), as: UTF8.self)
        let p384Error = try #require(throws: CryptoError.self) { try P256PrivateKey(pemRepresentation: p384) }
        #expect(p384Error.code == .invalidKey)
        let publicError = try #require(throws: CryptoError.self) { try P256PublicKey(pemRepresentation: p384Public) }
        #expect(publicError.code == .invalidKey)
        #expect(publicError.message.contains("secp384r1"))
        let edError = try #require(throws: CryptoError.self) { try P256PrivateKey(pemRepresentation: ed25519) }
        #expect(edError.code == .invalidKey)
    }
}
