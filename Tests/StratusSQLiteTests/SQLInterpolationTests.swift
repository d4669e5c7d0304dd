import Foundation
import StratusSQL
import Testing

/// `SQL`: interpolated values are bound parameters, rendered `?` or `$n`, never spliced text.
@Suite struct SQLInterpolationTests {
    @Test func interpolatedValuesBecomeParametersInEitherDialect() {
        let email = "zoë@example.com"
        let sql: SQL = "SELECT name FROM users WHERE email = \(email) AND created_at > \(Int64(42)) AND discoverable = \(true)"
        #expect(sql.text(for: .sqlite) == "SELECT name FROM users WHERE email = ? AND created_at > ? AND discoverable = ?")
        #expect(sql.text(for: .postgres) == "SELECT name FROM users WHERE email = $1 AND created_at > $2 AND discoverable = $3")
        #expect(sql.values == [.text(email), .integer(42), .bool(true)])
    }

    @Test func hostileTextIsBoundNotSpliced() {
        let hostile = "x'); DROP TABLE users; -- $1 ?"
        let sql: SQL = "DELETE FROM sessions WHERE id = \(hostile)"
        #expect(sql.text(for: .sqlite) == "DELETE FROM sessions WHERE id = ?")
        #expect(sql.text(for: .postgres) == "DELETE FROM sessions WHERE id = $1")
        #expect(sql.values == [.text(hostile)])
    }

    @Test func nilBindsNullAndBytesBindABlob() {
        let missing: String? = nil
        let payload: [UInt8] = [0, 255]
        let sql: SQL = "INSERT INTO t (a, b) VALUES (\(missing), \(payload))"
        #expect(sql.values == [.null, .blob(Data([0, 255]))])
    }

    @Test func fragmentsNestWithTheirParametersNumberedInOrder() {
        let columns: SQL = "id, name"
        let scope: SQL = "owner = \("alice") AND zone = \(Int64(7))"
        let sql: SQL = "SELECT \(columns) FROM records WHERE \(scope) AND name > \("m") LIMIT \(10)"
        #expect(sql.text(for: .postgres) == "SELECT id, name FROM records WHERE owner = $1 AND zone = $2 AND name > $3 LIMIT $4")
        #expect(sql.values == [.text("alice"), .integer(7), .text("m"), .integer(10)])
    }

    @Test func joinedFragmentsKeepEveryParameter() {
        let rows: SQL = [1, 2, 3].map { (value: Int) -> SQL in "(\(value), \("v\(value)"))" }.joined(separator: ", ")
        let sql: SQL = "INSERT INTO t (k, v) VALUES \(rows)"
        #expect(sql.text(for: .postgres) == "INSERT INTO t (k, v) VALUES ($1, $2), ($3, $4), ($5, $6)")
        #expect(sql.values.count == 6)
    }

    @Test func identifiersAreQuotedAndOnlyPlainNamesAreIdentifiers() {
        let sql: SQL = "SELECT \(identifier: "user_name") FROM t"
        #expect(sql.text(for: .sqlite) == "SELECT \"user_name\" FROM t")
        #expect(sql.values.isEmpty)
        #expect(SQL.isValidIdentifier("user"))
        #expect(SQL.isValidIdentifier("_x1"))
        for bad in ["", "1abc", "a b", "a\"b", "a;b", "zoë", "a-b"] {
            #expect(!SQL.isValidIdentifier(bad), "\(bad)")
        }
    }
}
