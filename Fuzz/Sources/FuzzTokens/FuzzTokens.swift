import Foundation
import FuzzSupport
@testable import StratusServer

private let secret = Data(repeating: 7, count: 32)
private let tokens = TokenCodec(secret: secret)
private let otherServer = TokenCodec(secret: Data(repeating: 8, count: 32))
private let webAuth = WebAuthTokenCodec(secret: secret)
private let signUp = SignUpTicketCodec(secret: secret)
private let fuzzDatabase = DatabaseKey(container: "iCloud.com.example.Fuzz", environment: .development, scope: .private, owner: "_owner")

/// The token codecs: sync tokens, continuation markers and asset tickets (`TokenCodec`, sealed
/// with XChaCha20-Poly1305), web auth tokens (`WebAuthTokenCodec`) and sign-up tickets.
///
/// The input is used twice: as a presented token (it must not open, or open to what it names), and
/// as the bytes a position, session and ticket are built from.
///
/// Invariants: what is sealed opens to the same value, and only as its own kind and with its own
/// secret; sealing a position is deterministic (the synthetic nonce); any change to a sealed token's
/// bytes makes it not open; a web auth token opens whether it arrives percent-encoded, decoded, or
/// with `+` turned into a space.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTokens(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput.data(bytes, count)
    let presented = String(decoding: input, as: UTF8.self)
    for kind in TokenCodec.Kind.allCases {
        _ = tokens.open(presented, kind: kind, as: ZoneFeedPosition.self)
        _ = tokens.open(presented, kind: kind, as: DatabaseSyncPosition.self)
    }
    _ = webAuth.open(presented)
    _ = signUp.open(presented)

    var reader = FuzzBytes(input)
    checkPositions(&reader, input)
    checkWebAuth(&reader, input)
    checkSignUp(&reader, input)
    return 0
}

private func checkPositions(_ reader: inout FuzzBytes, _ input: Data) {
    let flip = (Int(reader.byte()), reader.byte() | 1)
    let row = ZoneRow(
        rowID: reader.int64(), database: fuzzDatabase, zoneName: "Zone", changeSequence: 0, databaseSequence: 0, createdAt: reader.int64(),
        isDeleted: false)
    var zone = ZoneFeedPosition(zone: row, sequence: reader.int64(), scope: reader.byte() < 128 ? nil : String(decoding: reader.take(12), as: UTF8.self))
    if reader.byte() < 64 { zone.i = nil }
    let database = DatabaseSyncPosition(d: String(decoding: reader.take(16), as: UTF8.self), s: reader.int64())
    let sealed = tokens.seal(zone, kind: .zoneSync)
    FuzzCheck.that(tokens.seal(zone, kind: .zoneSync) == sealed, "sealing a position is deterministic", input)
    FuzzCheck.that(tokens.open(sealed, kind: .zoneSync, as: ZoneFeedPosition.self) == zone, "a zone token opens to its position", input)
    for kind in TokenCodec.Kind.allCases where kind != .zoneSync {
        FuzzCheck.that(tokens.open(sealed, kind: kind, as: ZoneFeedPosition.self) == nil, "a zone token opens as no other kind (\(kind))", input)
    }
    FuzzCheck.that(otherServer.open(sealed, kind: .zoneSync, as: ZoneFeedPosition.self) == nil, "a token opens only with its secret", input)
    let databaseToken = tokens.seal(database, kind: .databaseSync)
    FuzzCheck.that(tokens.open(databaseToken, kind: .databaseSync, as: DatabaseSyncPosition.self) == database, "a database token opens", input)
    guard var raw = Data(base64URLEncoded: sealed) else { FuzzCheck.fail("a sealed token is base64url", input) }
    let position = flip.0 % raw.count
    raw[position] ^= flip.1
    FuzzCheck.that(
        tokens.open(raw.base64URLEncodedString(), kind: .zoneSync, as: ZoneFeedPosition.self) == nil,
        "a token with byte \(position) changed does not open", input)
}

private func checkWebAuth(_ reader: inout FuzzBytes, _ input: Data) {
    // The hex is spelled here, independently of the codec's own encoder, so the oracle cannot share its bug.
    let sessionBytes = reader.take(16) + Data(repeating: 0, count: 16)
    let session = sessionBytes.prefix(16).map { String(format: "%02x", $0) }.joined()
    let issuedAt = reader.int64()
    guard let token = try? webAuth.seal(sessionID: String(session), issuedAt: issuedAt) else { return }
    let contents = WebAuthTokenCodec.Contents(sessionID: String(session), issuedAt: issuedAt)
    FuzzCheck.that(webAuth.open(token) == contents, "a web auth token opens to its session", input)
    let encoded = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token
    FuzzCheck.that(webAuth.open(encoded) == contents, "a percent-encoded web auth token opens", input)
    FuzzCheck.that(webAuth.open(token.replacingOccurrences(of: "+", with: " ")) == contents, "a form-decoded web auth token opens", input)
    var raw = Data(base64Encoded: token) ?? Data()
    guard !raw.isEmpty else { FuzzCheck.fail("a web auth token is base64", input) }
    let position = Int(reader.byte()) % raw.count
    raw[position] ^= reader.byte() | 1
    FuzzCheck.that(webAuth.open(raw.base64EncodedString()) == nil, "a web auth token with byte \(position) changed does not open", input)
}

private func checkSignUp(_ reader: inout FuzzBytes, _ input: Data) {
    let ticket = SignUpTicketCodec.Ticket(
        email: String(decoding: reader.take(Int(reader.byte() % 40)), as: UTF8.self), givenName: nil,
        familyName: reader.byte() < 128 ? nil : String(decoding: reader.take(8), as: UTF8.self), discoverable: reader.byte() & 1 == 1,
        issuedAt: reader.int64())
    guard let sealed = try? signUp.seal(ticket) else { return }
    FuzzCheck.that(signUp.open(sealed) == ticket, "a sign-up ticket opens to what it holds", input)
    FuzzCheck.that(SignUpTicketCodec(secret: Data(repeating: 9, count: 32)).open(sealed) == nil, "a ticket opens only with its secret", input)
}

/// Runs libFuzzer on ``fuzzTokens(_:_:)``.
@main
enum Main {
    static func main() { FuzzDriver.run(fuzzTokens) }
}
