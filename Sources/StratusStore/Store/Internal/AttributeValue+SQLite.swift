import Foundation
import StratusSQLite

extension AttributeValue {
    /// The value as stored in its column (see ``AttributeType`` for the mapping).
    var sqliteValue: SQLiteValue {
        switch self {
        case .string(let value): .text(value)
        case .integer16(let value): .integer(Int64(value))
        case .integer32(let value): .integer(Int64(value))
        case .integer64(let value): .integer(value)
        case .double(let value): .real(value)
        case .decimal(let value): .text(value.description)
        case .boolean(let value): .integer(value ? 1 : 0)
        case .date(let value): value.sqliteValue
        case .binaryData(let value): .blob(value)
        case .uuid(let value): value.sqliteValue
        case .uri(let value): .text(value.absoluteString)
        }
    }

    /// Reads a stored value of `type`; `.some(nil)` for `NULL`, `nil` when the stored value does not fit the type.
    static func read(_ value: SQLiteValue, as type: AttributeType) -> AttributeValue?? {
        if case .null = value { return .some(nil) }
        let converted: AttributeValue?
        switch type {
        case .string: converted = String(sqliteValue: value).map(AttributeValue.string)
        case .integer16: converted = Int64(sqliteValue: value).flatMap { Int16(exactly: $0) }.map(AttributeValue.integer16)
        case .integer32: converted = Int64(sqliteValue: value).flatMap { Int32(exactly: $0) }.map(AttributeValue.integer32)
        case .integer64: converted = Int64(sqliteValue: value).map(AttributeValue.integer64)
        case .double: converted = Double(sqliteValue: value).map(AttributeValue.double)
        case .decimal:
            if case .text(let text) = value {
                converted = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map(AttributeValue.decimal)
            } else {
                converted = Double(sqliteValue: value).map { AttributeValue.decimal(Decimal($0)) }
            }
        case .boolean: converted = Int64(sqliteValue: value).map { AttributeValue.boolean($0 != 0) }
        case .date: converted = Date(sqliteValue: value).map(AttributeValue.date)
        case .binaryData: converted = Data(sqliteValue: value).map(AttributeValue.binaryData)
        case .uuid: converted = UUID(sqliteValue: value).map(AttributeValue.uuid)
        case .uri:
            if case .text(let text) = value {
                converted = URL(string: text).map(AttributeValue.uri)
            } else {
                converted = nil
            }
        }
        guard let converted else { return nil }
        return .some(converted)
    }
}
