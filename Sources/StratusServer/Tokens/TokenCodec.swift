import Foundation
import StratusCrypto
import StratusWire

/// Seals positions (sync tokens, continuation markers) into opaque, tamper-evident strings.
///
/// A token is `base64url(kind ‖ JSON payload) "." base64url(HMAC-SHA256[0..<16])`
/// under a per-server secret. Clients cannot forge or edit one, and a token of
/// one kind is never accepted as another.
struct TokenCodec: Sendable {
    enum Kind: UInt8 {
        case zoneSync = 1
        case databaseSync = 2
        case queryContinuation = 3
        case sharedDatabaseSync = 4
        case assetUpload = 20
        case assetReceipt = 21
        case assetDownload = 22
    }

    let secret: Data

    func seal(_ payload: some Encodable, kind: Kind) -> String {
        var body = Data([kind.rawValue])
        // NB: encoding plain structs of integers and strings cannot fail.
        body.append((try? Self.encoder.encode(payload)) ?? Data())
        let mac = HMACSHA256.authenticationCode(for: body, key: secret).prefix(16)
        return body.base64URLEncodedString() + "." + Data(mac).base64URLEncodedString()
    }

    /// Opens a token, or `nil` when it is malformed, forged, or of another kind.
    func open<T: Decodable>(_ token: String, kind: Kind, as type: T.Type) -> T? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let body = Data(base64URLEncoded: String(parts[0])),
            let mac = Data(base64URLEncoded: String(parts[1])), body.first == kind.rawValue
        else { return nil }
        let expected = Data(HMACSHA256.authenticationCode(for: body, key: secret).prefix(16))
        guard ConstantTime.isEqual(mac, expected) else { return nil }
        return try? JSONDecoder().decode(T.self, from: body.dropFirst())
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()
}

/// The position a zone sync token names.
struct ZoneSyncPosition: Codable, Hashable {
    /// The zone's row (a recreated zone has a new one).
    var z: Int64
    /// The last change sequence the client has.
    var s: Int64
    /// The filtered view of the zone that issued the token (a participant's record shares), if any.
    var r: String? = nil
}

/// The position a database sync token names.
struct DatabaseSyncPosition: Codable, Hashable {
    /// A digest of the database key, so a token works only for its database.
    var d: String
    /// The last database change sequence the client has.
    var s: Int64
}
