import Foundation
import StratusCrypto
import StratusServerCrypto
import StratusWire

/// Seals positions (sync tokens, continuation markers) and asset tickets into opaque, tamper-evident strings.
///
/// A token is `base64url(version ‖ nonce ‖ ciphertext ‖ tag)`: the JSON payload encrypted
/// with XChaCha20-Poly1305 (``SealingKey``) under a key of its own kind, derived from the
/// server's token secret with HKDF and the label `stratus token <kind> v2`; the version and
/// the kind are the associated data. The nonce is synthetic (derived from the payload), so
/// the same position always gives the same token — a change feed with nothing new answers
/// with the token it was sent, as before. Clients can neither read a token (a continuation
/// marker holds the last record's name and sort values) nor forge or edit one, and a token
/// of one kind never opens as another. A token that does not open — tampered, truncated,
/// sealed by another server, of another kind, or made before version 2 (the HMAC-signed,
/// readable tokens) — is `nil`, and each caller answers it with its own `BAD_REQUEST`.
struct TokenCodec: Sendable {
    enum Kind: UInt8, CaseIterable {
        case zoneSync = 1
        case databaseSync = 2
        case queryContinuation = 3
        case sharedDatabaseSync = 4
        case assetUpload = 20
        case assetReceipt = 21
        case assetDownload = 22
    }

    /// The format's version, the first byte of every token.
    static let version: UInt8 = 2

    private let keys: [Kind: SealingKey]

    init(secret: Data) {
        var keys: [Kind: SealingKey] = [:]
        for kind in Kind.allCases {
            keys[kind] = SealingKey(derivingFrom: secret, label: "stratus token \(kind) v\(Self.version)")
        }
        self.keys = keys
    }

    func seal(_ payload: some Encodable, kind: Kind) -> String {
        // NB: encoding plain structs of integers and strings cannot fail.
        let body = (try? Self.encoder.encode(payload)) ?? Data()
        let box = key(kind).sealDeterministically(body, associatedData: Data([Self.version, kind.rawValue]))
        return (Data([Self.version]) + box).base64URLEncodedString()
    }

    /// Opens a token, or `nil` when it is malformed, forged, of another kind, or from before version 2.
    func open<T: Decodable>(_ token: String, kind: Kind, as type: T.Type) -> T? {
        guard let bytes = Data(base64URLEncoded: token), bytes.first == Self.version,
            let body = try? key(kind).open(bytes.dropFirst(), associatedData: Data([Self.version, kind.rawValue]))
        else { return nil }
        return try? JSONDecoder().decode(T.self, from: body)
    }

    private func key(_ kind: Kind) -> SealingKey {
        guard let key = keys[kind] else { preconditionFailure("TokenCodec has no key for kind \(kind)") }
        return key
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()
}

/// The position a database sync token names.
struct DatabaseSyncPosition: Codable, Hashable {
    /// A digest of the database key, so a token works only for its database.
    var d: String
    /// The database sequence of the last zone change the client has.
    var s: Int64
    /// The row ID of the last zone the client has at sequence `s`; absent in tokens made before
    /// it was part of them, whose `s` was a database counter value (``DatabaseFeedPosition``).
    var z: Int64?
}
