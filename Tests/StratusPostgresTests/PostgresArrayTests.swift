import Foundation
import StratusPostgres
import Testing

/// Arrays go to PostgreSQL in its binary format (`PostgresArray.postgresBinary`): every member
/// must arrive exactly as it was, whatever it holds, next to text parameters in one statement.
@Suite(.enabled(if: PostgresScratch.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"))
struct PostgresArrayTests {
    /// Strings an array literal would have to quote or escape, or that look like its syntax.
    static let hostile: [String?] = [
        "plain", "", " ", "NULL", "null", nil, "\"", "\\", "\\\"", "{", "}", "{a,b}", ",", "a,b", "'", "');DROP TABLE t;--",
        "tab\tnewline\ncarriage\r", "\u{1}\u{7F}", "ünïcødé", "e\u{301}", "🚀👩‍👩‍👧", "\u{FEFF}bom", "\\x00ff",
        String(repeating: "{\"\\,}", count: 200_000),
    ]

    @Test func stringsArriveExactlyAsTheyWereWithTheirNulls() throws {
        let scratch = try PostgresScratch()
        defer { try? scratch.drop() }
        let db = try scratch.connect()
        let rows = try db.query("SELECT s IS NULL, s FROM unnest($1::text[]) WITH ORDINALITY AS u(s, i) ORDER BY i", [PostgresArray(Self.hostile)])
        #expect(rows.count == Self.hostile.count)
        for (row, expected) in zip(rows, Self.hostile) {
            #expect(try row[0] as Bool == (expected == nil))
            #expect(try row[1] as String? == expected)
        }
        // The text form (an array literal) parses to the same array.
        let same = try db.queryFirst(
            "SELECT $1::text[] IS NOT DISTINCT FROM $2::text[]", [PostgresArray(Self.hostile), PostgresArray(Self.hostile).postgresText])
        #expect(try same?[0] as Bool? == true)
    }

    @Test func bytesIntegersAndDoublesKeepEveryValue() throws {
        let scratch = try PostgresScratch()
        defer { try? scratch.drop() }
        let db = try scratch.connect()
        let blobs = [Data([0, 1, 0x22, 0x2C, 0x5C, 0x7B, 0x7D, 0x80, 0xFF]), Data(), Data("\\x41".utf8), Data(repeating: 0, count: 100_000)]
        let integers: [Int64?] = [Int64.min, -1, 0, nil, Int64.max]
        let small: [Int32] = [Int32.min, -1, 0, 1, Int32.max]
        let doubles: [Double?] = [-0.0, 0.1 + 0.2, Double.leastNonzeroMagnitude, -Double.greatestFiniteMagnitude, .infinity, -.infinity, nil]
        let rows = try db.query(
            "SELECT b, i, s, d FROM unnest($1::bytea[], $2::bigint[], $3::int[], $4::float8[]) WITH ORDINALITY AS u(b, i, s, d, o) ORDER BY o",
            [PostgresArray(blobs), PostgresArray(integers), PostgresArray(small), PostgresArray(doubles)]
        )
        #expect(rows.count == doubles.count)
        #expect(try rows.prefix(blobs.count).map { try $0[0] as Data } == blobs)
        #expect(try rows.prefix(integers.count).map { try $0[1] as Int64? } == integers)
        #expect(try rows.prefix(small.count).map { try $0[2] as Int64 } == small.map(Int64.init))
        #expect(try rows.map { try $0[3] as Double? } == doubles)
        let negativeZero = try rows[0][3] as Double?
        #expect(negativeZero?.sign == .minus)
        let nan = try db.queryFirst("SELECT d = 'NaN'::float8 FROM unnest($1::float8[]) AS u(d)", [PostgresArray([Double?](arrayLiteral: Double.nan))])
        #expect(try nan?[0] as Bool? == true)
    }

    @Test func emptyArraysOfEveryTypeHaveNoMembers() throws {
        let scratch = try PostgresScratch()
        defer { try? scratch.drop() }
        let db = try scratch.connect()
        let row = try #require(
            try db.queryFirst(
                "SELECT cardinality($1::text[]), cardinality($2::bytea[]), cardinality($3::bigint[]), cardinality($4::int[]), cardinality($5::float8[])",
                [PostgresArray([String]()), PostgresArray([Data]()), PostgresArray([Int64]()), PostgresArray([Int32]()), PostgresArray([Double?]())]
            )
        )
        #expect(try (0..<5).map { try row[$0] as Int64 } == [0, 0, 0, 0, 0])
        #expect(try db.query("SELECT * FROM unnest($1::text[])", [PostgresArray([String]())]).isEmpty)
    }

    /// Binary and text parameters in one statement, alone and in a pipeline: each keeps its own format.
    @Test func binaryArraysMixWithTextParameters() throws {
        let scratch = try PostgresScratch()
        defer { try? scratch.drop() }
        let db = try scratch.connect()
        let sql = "SELECT $1::text, array_to_string($2::text[], '|'), $3::bigint, cardinality($4::bigint[]), $5::text IS NULL"
        let parameters: [any PostgresBindable] = ["{1,2}", PostgresArray(["a", "b"]), Int64(7), PostgresArray([Int64(1), 2, 3]), String?.none]
        let expected: [String?] = ["{1,2}", "a|b", "7", "3", "t"]
        let alone = try #require(try db.queryFirst(sql, parameters))
        #expect(try (0..<5).map { try alone[$0] as String? } == expected)
        let piped = try db.pipeline([PostgresStatement(sql, parameters), PostgresStatement("SELECT $1::text", ["after"])])
        #expect(try (0..<5).map { try piped[0][0][$0] as String? } == expected)
        #expect(try piped[1][0][0] as String == "after")
    }

    /// PostgreSQL refuses U+0000 in text: a clear error, not a member cut short, and the connection goes on.
    @Test func aStringWithNULIsRefusedWhole() throws {
        let scratch = try PostgresScratch()
        defer { try? scratch.drop() }
        let db = try scratch.connect()
        try db.execute("CREATE TABLE t (s TEXT)")
        #expect(throws: PostgresError.self) {
            try db.execute("INSERT INTO t SELECT * FROM unnest($1::text[])", [PostgresArray(["fine", "cut\u{0}short"])])
        }
        #expect(try db.query("SELECT s FROM t").isEmpty)
        #expect(try db.queryFirst("SELECT 1")?[0] as Int64? == 1)
    }

    /// The array's type must be the one the statement names: a mismatch is an error, never a conversion.
    @Test func aMismatchedElementTypeIsAnError() throws {
        let scratch = try PostgresScratch()
        defer { try? scratch.drop() }
        let db = try scratch.connect()
        #expect(throws: PostgresError.self) { try db.query("SELECT cardinality($1::text[])", [PostgresArray([Int64(1)])]) }
    }
}
