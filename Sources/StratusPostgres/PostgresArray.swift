public import Foundation

/// A one-dimensional array parameter — `= ANY($1::text[])`, `unnest($1::bigint[], $2::bytea[])` —
/// sent in PostgreSQL's binary array format (``postgresBinary``).
///
/// Each member goes over the wire as its length and its bytes (a string's UTF-8, a `bytea`'s raw
/// bytes, an integer or a double as big-endian bytes), so nothing is quoted, escaped or parsed:
/// whatever a member holds (quotes, backslashes, braces, commas, the word `NULL`) arrives as it
/// was, and a `bytea` member is not doubled into hex. PostgreSQL checks the element type sent
/// against the statement's cast, so the cast must name it: `bigint[]` for `Int64`, `int[]` for
/// `Int32`, `float8[]` for `Double`, `text[]` for `String`, `bytea[]` for `Data`. A string
/// holding U+0000 is refused by PostgreSQL, as in any `text` value.
///
/// ```swift
/// let rows = try db.query(
///     "SELECT n, s FROM unnest($1::bigint[], $2::text[]) AS u(n, s)",
///     [PostgresArray([Int64(1), 2]), PostgresArray(["a \"quoted\" {value}", "NULL"])]
/// )
/// ```
public struct PostgresArray: PostgresBindable {
    private enum Members {
        case strings([String?])
        case blobs([Data])
        case integers([Int64?])
        case smallIntegers([Int32])
        case doubles([Double?])
    }

    private let members: Members

    /// An array of strings (`text[]`); `nil` members are SQL `NULL`.
    public init(_ strings: [String?]) { members = .strings(strings) }

    /// An array of strings (`text[]`).
    public init(_ strings: [String]) { members = .strings(strings) }

    /// An array of byte strings (`bytea[]`).
    public init(_ blobs: [Data]) { members = .blobs(blobs) }

    /// An array of integers (`bigint[]`); `nil` members are SQL `NULL`.
    public init(_ integers: [Int64?]) { members = .integers(integers) }

    /// An array of integers (`bigint[]`).
    public init(_ integers: [Int64]) { members = .integers(integers) }

    /// An array of 32-bit integers (`int[]`).
    public init(_ integers: [Int32]) { members = .smallIntegers(integers) }

    /// An array of doubles (`float8[]`); `nil` members are SQL `NULL`.
    public init(_ doubles: [Double?]) { members = .doubles(doubles) }

    /// The array literal (`{…}`, members quoted and escaped), as PostgreSQL prints it; the
    /// connection sends ``postgresBinary`` instead.
    public var postgresText: String? {
        switch members {
        case .strings(let strings): Self.literal(strings.map { $0.map(Self.quoted) })
        case .blobs(let blobs): Self.literal(blobs.map { "\"\\\(PostgresHex.encode($0))\"" })
        case .integers(let integers): Self.literal(integers.map { $0.map(String.init) })
        case .smallIntegers(let integers): Self.literal(integers.map(String.init))
        case .doubles(let doubles): Self.literal(doubles.map { $0?.postgresText })
        }
    }

    /// PostgreSQL's binary array: one dimension (none when empty), whether a member is `NULL`, the
    /// element type's object ID, the dimension's length and lower bound, then each member as its
    /// 4-byte length (-1 for `NULL`) and bytes.
    public var postgresBinary: [UInt8]? {
        var writer = PostgresBinaryWriter()
        switch members {
        case .strings(let strings):
            writer.header(elementType: 25, count: strings.count, hasNull: strings.contains(nil))
            for string in strings { writer.member(string?.utf8) }
        case .blobs(let blobs):
            writer.header(elementType: 17, count: blobs.count, hasNull: false)
            for blob in blobs { writer.member(blob) }
        case .integers(let integers):
            writer.header(elementType: 20, count: integers.count, hasNull: integers.contains(nil))
            for integer in integers { writer.fixed(integer.map { UInt64(bitPattern: $0) }, size: 8) }
        case .smallIntegers(let integers):
            writer.header(elementType: 23, count: integers.count, hasNull: false)
            for integer in integers { writer.fixed(UInt64(UInt32(bitPattern: integer)), size: 4) }
        case .doubles(let doubles):
            writer.header(elementType: 701, count: doubles.count, hasNull: doubles.contains(nil))
            for double in doubles { writer.fixed(double.map(\.bitPattern), size: 8) }
        }
        return writer.bytes
    }

    private static func literal(_ members: [String?]) -> String {
        "{" + members.map { $0 ?? "NULL" }.joined(separator: ",") + "}"
    }

    private static func quoted(_ value: String) -> String {
        var escaped: [UInt8] = [UInt8(ascii: "\"")]
        escaped.reserveCapacity(value.utf8.count + 2)
        for byte in value.utf8 {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { escaped.append(UInt8(ascii: "\\")) }
            escaped.append(byte)
        }
        escaped.append(UInt8(ascii: "\""))
        return String(decoding: escaped, as: UTF8.self)
    }
}

/// Writes PostgreSQL's binary array format (`array_send`), big-endian.
private struct PostgresBinaryWriter {
    var bytes: [UInt8] = []

    mutating func header(elementType: UInt32, count: Int, hasNull: Bool) {
        precondition(count <= Int(Int32.max), "a PostgreSQL array holds at most 2³¹ − 1 members")
        integer(count == 0 ? 0 : 1, size: 4)  // dimensions
        integer(hasNull ? 1 : 0, size: 4)
        integer(UInt64(elementType), size: 4)
        guard count > 0 else { return }
        integer(UInt64(count), size: 4)
        integer(1, size: 4)  // lower bound
    }

    /// A variable-length member (`nil`: `NULL`).
    mutating func member<Bytes: Collection<UInt8>>(_ member: Bytes?) {
        guard let member else { return integer(UInt64(UInt32.max), size: 4) }
        precondition(member.count < 1 << 30, "a PostgreSQL value holds at most 1 GiB")
        integer(UInt64(member.count), size: 4)
        bytes.append(contentsOf: member)
    }

    /// A fixed-size member, its low `size` bytes (`nil`: `NULL`).
    mutating func fixed(_ value: UInt64?, size: Int) {
        guard let value else { return integer(UInt64(UInt32.max), size: 4) }
        integer(UInt64(size), size: 4)
        integer(value, size: size)
    }

    private mutating func integer(_ value: UInt64, size: Int) {
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
