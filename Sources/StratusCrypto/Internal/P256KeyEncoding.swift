import Foundation

/// The standard encodings of P-256 keys, in pure Swift: SEC 1 `ECPrivateKey`, PKCS #8
/// `PrivateKeyInfo` and X.509 `SubjectPublicKeyInfo`, in DER and PEM.
///
/// The CryptoKit side of ``P256PrivateKey`` and ``P256PublicKey`` holds keys as a raw scalar and
/// an uncompressed point and encodes them here, byte for byte as OpenSSL does; it is built on
/// every platform so the Linux tests can compare it with OpenSSL's output.
enum P256KeyEncoding {
    /// The bytes of a private scalar.
    static let scalarByteCount = 32
    /// The bytes of an uncompressed point: `04 ‖ x ‖ y`.
    static let pointByteCount = 65
    /// `id-ecPublicKey` (1.2.840.10045.2.1).
    static let ecPublicKeyOID = Data([0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01])
    /// `prime256v1` (1.2.840.10045.3.1.7).
    static let prime256v1OID = Data([0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07])

    /// What a private key's encoding holds: the scalar and, when present, the public point.
    struct PrivateKeyParts: Equatable {
        var scalar: Data
        var point: Data?
    }

    // MARK: Reading

    /// The parts of a PEM `EC PRIVATE KEY` (SEC 1) or `PRIVATE KEY` (PKCS #8) block.
    ///
    /// - Throws: ``CryptoError/Code/invalidPEM`` without such a block, ``CryptoError/Code/invalidKey``
    ///   when its contents are not a P-256 key.
    static func privateKey(fromPEM text: String) throws(CryptoError) -> PrivateKeyParts {
        guard let block = PEMText.firstBlock(in: text, labels: ["EC PRIVATE KEY", "PRIVATE KEY"]) else {
            throw CryptoError(
                code: .invalidPEM,
                message: "the text holds no decodable '-----BEGIN EC PRIVATE KEY-----' or '-----BEGIN PRIVATE KEY-----' block"
                    + (text.contains("ENCRYPTED PRIVATE KEY") ? " (encrypted keys are not supported)" : ""))
        }
        return block.label == "PRIVATE KEY" ? try privateKey(fromPKCS8: block.der) : try privateKey(fromSEC1: block.der)
    }

    /// The parts of a DER `ECPrivateKey`: `SEQUENCE { 1, OCTET STRING d, [0] curve?, [1] point? }`.
    static func privateKey(fromSEC1 der: Data, curveKnown: Bool = false) throws(CryptoError) -> PrivateKeyParts {
        var outer = DERReader(der)
        guard let body = outer.read(DERReader.Tag.sequence), outer.isAtEnd else { throw invalid("the EC private key is not one DER SEQUENCE") }
        var reader = DERReader(body)
        guard reader.read(DERReader.Tag.integer) == Data([1]) else { throw invalid("the EC private key's version is not 1") }
        guard let scalar = reader.read(DERReader.Tag.octetString), (1...scalarByteCount).contains(scalar.count) else {
            throw invalid("the EC private key's scalar is not 1 to 32 bytes")
        }
        var hasCurve = curveKnown
        if reader.nextTag == DERReader.Tag.context0 {
            guard let parameters = reader.read(DERReader.Tag.context0), curveOID(in: parameters) == prime256v1OID else {
                throw invalid("the EC private key is not on P-256 (prime256v1)")
            }
            hasCurve = true
        }
        var point: Data?
        if reader.nextTag == DERReader.Tag.context1 {
            guard let wrapped = reader.read(DERReader.Tag.context1), let found = uncompressedPoint(inBitString: wrapped) else {
                throw invalid("the EC private key's public point is not an uncompressed P-256 point")
            }
            point = found
        }
        guard hasCurve else { throw invalid("the EC private key names no curve") }
        return PrivateKeyParts(scalar: Data(repeating: 0, count: scalarByteCount - scalar.count) + scalar, point: point)
    }

    /// The parts of a DER `PrivateKeyInfo` holding an `ECPrivateKey` on P-256.
    static func privateKey(fromPKCS8 der: Data) throws(CryptoError) -> PrivateKeyParts {
        var outer = DERReader(der)
        guard let body = outer.read(DERReader.Tag.sequence), outer.isAtEnd else { throw invalid("the PKCS #8 key is not one DER SEQUENCE") }
        var reader = DERReader(body)
        guard reader.read(DERReader.Tag.integer) == Data([0]) else { throw invalid("the PKCS #8 key's version is not 0") }
        guard let algorithm = reader.read(DERReader.Tag.sequence), isP256Algorithm(algorithm) else {
            throw invalid("the PKCS #8 key is not an EC key on P-256 (prime256v1)")
        }
        guard let inner = reader.read(DERReader.Tag.octetString) else { throw invalid("the PKCS #8 key holds no private key") }
        return try privateKey(fromSEC1: inner, curveKnown: true)
    }

    /// The uncompressed point of a DER `SubjectPublicKeyInfo` on P-256.
    static func point(fromSPKI der: Data) throws(CryptoError) -> Data {
        var outer = DERReader(der)
        guard let body = outer.read(DERReader.Tag.sequence), outer.isAtEnd else { throw invalid("the bytes are not a DER SubjectPublicKeyInfo") }
        var reader = DERReader(body)
        guard let algorithm = reader.read(DERReader.Tag.sequence), isP256Algorithm(algorithm) else {
            throw invalid("the public key is not an EC key on P-256 (prime256v1)")
        }
        guard let bits = reader.read(DERReader.Tag.bitString), reader.isAtEnd, let point = uncompressedPoint(inBitStringValue: bits) else {
            throw invalid("the public key is not an uncompressed P-256 point")
        }
        return point
    }

    /// The uncompressed point of a PEM `PUBLIC KEY` block.
    static func point(fromPEM text: String) throws(CryptoError) -> Data {
        guard let block = PEMText.firstBlock(in: text, labels: ["PUBLIC KEY"]) else {
            throw CryptoError(
                code: .invalidPEM,
                message: "the text holds no decodable '-----BEGIN PUBLIC KEY-----' block"
                    + (text.contains("PRIVATE KEY") ? " (it looks like a private key)" : ""))
        }
        return try point(fromSPKI: block.der)
    }

    // MARK: Writing

    /// SEC 1 `ECPrivateKey` with the curve and the public point, as `openssl ecparam -genkey` writes it.
    static func sec1DER(scalar: Data, point: Data) -> Data {
        let curve = DERReader.element(DERReader.Tag.context0, DERReader.element(DERReader.Tag.objectIdentifier, prime256v1OID))
        return ecPrivateKey(scalar: scalar, point: point, extra: curve)
    }

    /// PKCS #8 `PrivateKeyInfo`, as OpenSSL 3 writes it (the curve in the algorithm, not in the inner key).
    static func pkcs8DER(scalar: Data, point: Data) -> Data {
        let body =
            DERReader.element(DERReader.Tag.integer, Data([0])) + algorithmIdentifier
            + DERReader.element(DERReader.Tag.octetString, ecPrivateKey(scalar: scalar, point: point, extra: Data()))
        return DERReader.element(DERReader.Tag.sequence, body)
    }

    /// `SubjectPublicKeyInfo` (91 bytes).
    static func spkiDER(point: Data) -> Data {
        DERReader.element(DERReader.Tag.sequence, algorithmIdentifier + DERReader.element(DERReader.Tag.bitString, Data([0]) + point))
    }

    // MARK: Pieces

    private static var algorithmIdentifier: Data {
        DERReader.element(
            DERReader.Tag.sequence,
            DERReader.element(DERReader.Tag.objectIdentifier, ecPublicKeyOID) + DERReader.element(DERReader.Tag.objectIdentifier, prime256v1OID))
    }

    private static func ecPrivateKey(scalar: Data, point: Data, extra: Data) -> Data {
        let publicKey = DERReader.element(DERReader.Tag.context1, DERReader.element(DERReader.Tag.bitString, Data([0]) + point))
        let body = DERReader.element(DERReader.Tag.integer, Data([1])) + DERReader.element(DERReader.Tag.octetString, scalar) + extra + publicKey
        return DERReader.element(DERReader.Tag.sequence, body)
    }

    private static func isP256Algorithm(_ algorithm: Data) -> Bool {
        var reader = DERReader(algorithm)
        return reader.read(DERReader.Tag.objectIdentifier) == ecPublicKeyOID && reader.read(DERReader.Tag.objectIdentifier) == prime256v1OID
            && reader.isAtEnd
    }

    private static func curveOID(in parameters: Data) -> Data? {
        var reader = DERReader(parameters)
        return reader.read(DERReader.Tag.objectIdentifier)
    }

    /// The point inside `[1] { BIT STRING }`.
    private static func uncompressedPoint(inBitString wrapped: Data) -> Data? {
        var reader = DERReader(wrapped)
        return reader.read(DERReader.Tag.bitString).flatMap(uncompressedPoint(inBitStringValue:))
    }

    /// The point of a BIT STRING's value: no unused bits, `04 ‖ x ‖ y`.
    private static func uncompressedPoint(inBitStringValue bits: Data) -> Data? {
        guard bits.count == pointByteCount + 1, bits.first == 0, bits[bits.startIndex + 1] == 0x04 else { return nil }
        return Data(bits.dropFirst())
    }

    private static func invalid(_ message: String) -> CryptoError {
        CryptoError(code: .invalidKey, message: message)
    }
}
