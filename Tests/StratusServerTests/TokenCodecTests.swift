import Foundation
@testable import StratusServer
import Testing

/// Tokens are sealed: opaque, tamper-evident, bound to their kind and server.
@Suite struct TokenCodecTests {
    let codec = TokenCodec(secret: Data(repeating: 7, count: 32))

    /// A payload shaped like a zone's feed position.
    struct Position: Codable, Hashable {
        var z: Int64
        var s: Int64
        var r: String?
    }

    @Test(arguments: TokenCodec.Kind.allCases)
    func aTokenOpensAsItsKindOnly(kind: TokenCodec.Kind) throws {
        let position = Position(z: 41, s: 1234, r: "hidden-view")
        let token = codec.seal(position, kind: kind)
        #expect(codec.open(token, kind: kind, as: Position.self) == position)
        for other in TokenCodec.Kind.allCases where other != kind {
            #expect(codec.open(token, kind: other, as: Position.self) == nil, "\(kind) opened as \(other)")
        }
        #expect(TokenCodec(secret: Data(repeating: 8, count: 32)).open(token, kind: kind, as: Position.self) == nil)
    }

    @Test func aTokenShowsNothingOfItsPayload() throws {
        let cursor = QueryCursor(sortValues: [.text("swordfish-secret")], zoneRowID: 7, recordName: "hidden-record")
        let token = codec.seal(QueryContinuation(f: "fingerprint", c: cursor), kind: .queryContinuation)
        let bytes = try #require(Self.base64URLDecoded(token))
        for secret in ["swordfish-secret", "hidden-record", "fingerprint", "recordName"] {
            #expect(!String(decoding: bytes, as: UTF8.self).contains(secret))
            #expect(!token.contains(secret))
        }
        #expect(bytes.first == TokenCodec.version)
        #expect(codec.open(token, kind: .queryContinuation, as: QueryContinuation.self)?.c == cursor)
        // The same position gives the same token; another position another one, with another nonce.
        #expect(codec.seal(QueryContinuation(f: "fingerprint", c: cursor), kind: .queryContinuation) == token)
        var next = cursor
        next.recordName = "hidden-recore"
        let other = try #require(Self.base64URLDecoded(codec.seal(QueryContinuation(f: "fingerprint", c: next), kind: .queryContinuation)))
        #expect(other.prefix(25) != bytes.prefix(25))
    }

    /// A database token sealed before positions named a zone row opens with no zone: its `s` is a
    /// database counter value, which the back end maps onto its log (Documentation/0008).
    @Test func aDatabaseTokenWithoutAZoneOpensAsACounterValue() throws {
        let token = codec.seal(LegacyDatabaseSyncPosition(d: "digest", s: 99), kind: .databaseSync)
        #expect(codec.open(token, kind: .databaseSync, as: DatabaseSyncPosition.self) == DatabaseSyncPosition(d: "digest", s: 99, z: nil))
        let current = codec.seal(DatabaseSyncPosition(d: "digest", s: 99, z: 7), kind: .databaseSync)
        #expect(codec.open(current, kind: .databaseSync, as: DatabaseSyncPosition.self)?.z == 7)
    }

    /// The database token's payload before this change.
    struct LegacyDatabaseSyncPosition: Encodable {
        var d: String
        var s: Int64
    }

    @Test func alteredTruncatedAndOldTokensDoNotOpen() throws {
        let position = DatabaseSyncPosition(d: "digest", s: 99)
        let token = codec.seal(position, kind: .databaseSync)
        let bytes = try #require(Self.base64URLDecoded(token))
        for index in bytes.indices {
            var altered = bytes
            altered[index] ^= 0x20
            #expect(codec.open(Self.base64URLEncoded(altered), kind: .databaseSync, as: DatabaseSyncPosition.self) == nil, "byte \(index)")
        }
        // Version 1 was base64url(kind ‖ JSON) "." base64url(HMAC): readable, and refused now.
        let version1 = Self.base64URLEncoded(Data([2]) + Data(#"{"d":"digest","s":99}"#.utf8)) + "." + Self.base64URLEncoded(Data(count: 16))
        let garbage = ["", ".", "%%", String(token.dropLast()), String(token.dropFirst()), token + "A", version1, String(repeating: "A", count: 100_000)]
        for text in garbage {
            #expect(codec.open(text, kind: .databaseSync, as: DatabaseSyncPosition.self) == nil, "\(text.prefix(40))")
        }
        // A genuine token of the right kind with another payload is refused too.
        #expect(codec.open(codec.seal(["unexpected": true], kind: .databaseSync), kind: .databaseSync, as: DatabaseSyncPosition.self) == nil)
    }

    static func base64URLDecoded(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    static func base64URLEncoded(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}

/// What of a record type each caller may read, as queries add it to their plans.
@Suite struct ReadScopeTests {
    typealias Permissions = SecurityRoles.Permissions

    @Test func rolesGiveEachCallerItsScope() {
        let creatorOnly = SecurityRoles(world: Permissions(), authenticated: Permissions(create: true), creator: Permissions(read: true, write: true))
        #expect(creatorOnly.readScope(caller: nil) == .none)
        #expect(creatorOnly.readScope(caller: "_b") == .createdBy("_b"))
        let members = SecurityRoles(world: Permissions(), authenticated: Permissions(read: true), creator: Permissions())
        #expect(members.readScope(caller: nil) == .none)
        #expect(members.readScope(caller: "_b") == .all)
        let writeOnly = SecurityRoles(world: Permissions(), authenticated: Permissions(create: true), creator: Permissions(write: true))
        #expect(writeOnly.readScope(caller: "_b") == .none)
        #expect(SecurityRoles.default.readScope(caller: nil) == .all)
        let record = StoredRecord(
            zoneRowID: 1, recordName: "r", recordType: "Diary", changeTag: "1", fields: [:],
            created: .init(timestamp: 0, userRecordName: "_a", deviceID: "d"), modified: .init(timestamp: 0, userRecordName: "_a", deviceID: "d"),
            changeSequence: 1
        )
        #expect(creatorOnly.mayRead(record, caller: "_a") && !creatorOnly.mayRead(record, caller: "_b") && !creatorOnly.mayRead(record, caller: nil))
        #expect(ReadScope.createdBy("_a").fingerprint != ReadScope.createdBy("_b").fingerprint)
    }
}
