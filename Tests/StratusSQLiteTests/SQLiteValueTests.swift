import Foundation
import StratusSQLite
import Testing

@Suite struct SQLiteValueTests {
    /// Writes `value` into an untyped column and reads it back, with its storage class.
    private func roundTrip<Value: SQLiteValueConvertible>(_ value: Value) throws -> (Value, String) {
        let test = try TestConnection()
        try test.db.execute(sql: "CREATE TABLE t (v)")
        try test.db.execute("INSERT INTO t (v) VALUES (?)", [value])
        let result = try #require(
            try test.db.fetchOne("SELECT v, typeof(v) FROM t") { row in (try row[0] as Value, try row[1] as String) })
        return result
    }

    /// Every integer type keeps its extremes and is stored as INTEGER.
    @Test func integersRoundTripIncludingExtremes() throws {
        for value in [Int64.min, -1, 0, 1, Int64.max] {
            let (read, storage) = try roundTrip(value)
            #expect(read == value)
            #expect(storage == "integer")
        }
        #expect(try roundTrip(Int.min).0 == Int.min)
        #expect(try roundTrip(Int.max).0 == Int.max)
        #expect(try roundTrip(Int32.min).0 == Int32.min)
        #expect(try roundTrip(Int32.max).0 == Int32.max)
    }

    /// Doubles keep every bit, including infinities and negative zero.
    @Test func doublesRoundTripExactly() throws {
        for value in [0.0, -0.0, 1.5, -2.25e-300, Double.greatestFiniteMagnitude, .leastNonzeroMagnitude, .infinity, -.infinity] {
            let (read, storage) = try roundTrip(value)
            #expect(read.bitPattern == value.bitPattern)
            #expect(storage == "real")
        }
    }

    /// Text keeps unicode, embedded NULs and the empty string (which is not NULL).
    @Test func textRoundTripsUnicodeAndEmpty() throws {
        for value in ["", "plain", "Zoë 🚀 日本語 👩‍👩‍👧", "a\u{0}b", String(repeating: "x", count: 100_000)] {
            let (read, storage) = try roundTrip(value)
            #expect(read == value)
            #expect(storage == "text")
        }
    }

    /// An empty blob stays an empty blob, distinct from NULL.
    @Test func emptyBlobIsNotNull() throws {
        let (read, storage) = try roundTrip(Data())
        #expect(read == Data())
        #expect(storage == "blob")
        let (missing, nullStorage) = try roundTrip(Data?.none)
        #expect(missing == nil)
        #expect(nullStorage == "null")
        let (bytes, bytesStorage) = try roundTrip([UInt8]())
        #expect(bytes.isEmpty)
        #expect(bytesStorage == "blob")
    }

    /// Blobs keep every byte, as Data and as [UInt8].
    @Test func blobsRoundTrip() throws {
        let data = Data((0...255).map { UInt8($0) })
        #expect(try roundTrip(data) == (data, "blob"))
        #expect(try roundTrip([UInt8](data)).0 == [UInt8](data))
    }

    /// Bool is stored as 0 or 1.
    @Test func boolsAreStoredAsIntegers() throws {
        #expect(try roundTrip(true) == (true, "integer"))
        #expect(try roundTrip(false) == (false, "integer"))
        let test = try TestConnection()
        #expect(try test.db.fetchOne(Int.self, "SELECT ?", [true]) == 1)
    }

    /// UUID is a 16-byte blob, and canonical text also reads as a UUID.
    @Test func uuidsAreSixteenByteBlobs() throws {
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let (read, storage) = try roundTrip(uuid)
        #expect(read == uuid)
        #expect(storage == "blob")
        let test = try TestConnection()
        #expect(try test.db.fetchOne(Int.self, "SELECT length(?)", [uuid]) == 16)
        #expect(try test.db.fetchOne(UUID.self, "SELECT ?", [uuid.uuidString]) == uuid)
        #expect(throws: SQLiteError.self) { try test.db.fetchOne(UUID.self, "SELECT X'0102'") }
    }

    /// Date is REAL Unix time in seconds, usable with SQLite's date functions.
    @Test func datesAreUnixTimeInSeconds() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123456)
        let (read, storage) = try roundTrip(date)
        #expect(read == date)
        #expect(storage == "real")
        let test = try TestConnection()
        #expect(try test.db.fetchOne(String.self, "SELECT datetime(?, 'unixepoch')", [date]) == "2023-11-14 22:13:20")
        #expect(try test.db.fetchOne(Date.self, "SELECT 86400") == Date(timeIntervalSince1970: 86400))
    }

    /// Optionals read NULL as nil and values as values.
    @Test func optionalsMapNullToNil() throws {
        #expect(try roundTrip(Int64?.none).0 == nil)
        #expect(try roundTrip(Int64?.some(42)).0 == 42)
        #expect(try roundTrip(String?.some("x")).0 == "x")
    }

    /// SQLiteValue round-trips every storage class as is.
    @Test func sqliteValuesRoundTrip() throws {
        let values: [SQLiteValue] = [.null, .integer(-7), .real(2.5), .text("t"), .blob(Data([1, 2])), .blob(Data())]
        for value in values {
            #expect(try roundTrip(value).0 == value)
        }
    }

    /// Conversions that would lose information fail with a mismatch naming the column.
    @Test func lossyConversionsFailWithMismatch() throws {
        let test = try TestConnection()
        let error = try #require(throws: SQLiteError.self) {
            try test.db.fetchOne("SELECT 'abc' AS label") { row in try row["label"] as Int64 }
        }
        #expect(error.code == .mismatch)
        #expect(error.message.contains("label"))
        #expect(error.message.contains("TEXT"))
        #expect(error.sql == "SELECT 'abc' AS label")
        #expect(throws: SQLiteError.self) { try test.db.fetchOne(Int32.self, "SELECT ?", [Int64(Int32.max) + 1]) }
        #expect(throws: SQLiteError.self) { try test.db.fetchOne(Int64.self, "SELECT 1.5") }
        #expect(throws: SQLiteError.self) { try test.db.fetchOne(String.self, "SELECT NULL") }
        #expect(try test.db.fetchOne(Int64.self, "SELECT 2.0") == 2)
        #expect(try test.db.fetchOne(Double.self, "SELECT 3") == 3.0)
    }

    /// Literals make SQLiteValues, and descriptions look like SQL literals.
    @Test func valuesDescribeThemselvesAsSQLLiterals() {
        let values: [SQLiteValue] = [nil, 1, 2.5, "it's", .blob(Data([0x0A, 0xFF]))]
        #expect(values.map(\.description) == ["NULL", "1", "2.5", "'it''s'", "X'0AFF'"])
    }
}
