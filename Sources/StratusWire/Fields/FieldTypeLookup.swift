/// A schema lookup that tells decoders which ``FieldType`` a record field should have.
///
/// CloudKit clients may send untagged values (`{"value": 1747999812000}`); only the schema
/// knows that such a number is a TIMESTAMP. Pass a lookup to
/// ``WireCoding/decode(_:from:fieldTypes:)`` and ``Record`` decodes each field with
/// ``FieldValue/init(json:expecting:codingPath:)`` using the type it returns.
///
/// ```swift
/// let lookup = FieldTypeLookup { recordType, fieldName in
///     recordType == "Task" && fieldName == "due" ? .timestamp : nil
/// }
/// let request = try WireCoding.decode(RecordsModify.Request.self, from: body, fieldTypes: lookup)
/// ```
public struct FieldTypeLookup: Sendable {
    private let resolve: @Sendable (_ recordType: String?, _ fieldName: String) -> FieldType?

    /// Creates a lookup from a closure.
    ///
    /// - Parameter resolve: Returns the schema type of `fieldName` in `recordType`
    ///   (`nil` when the record type is not known, as on `update`), or `nil` if unknown.
    public init(_ resolve: @escaping @Sendable (_ recordType: String?, _ fieldName: String) -> FieldType?) {
        self.resolve = resolve
    }

    /// The expected type of a field, if the schema knows it.
    ///
    /// - Parameters:
    ///   - recordType: The record type, when the record carries one.
    ///   - fieldName: The field's name.
    /// - Returns: The expected type, or `nil`.
    public func callAsFunction(recordType: String?, fieldName: String) -> FieldType? {
        resolve(recordType, fieldName)
    }
}
