/// Why a schema document or a schema change was refused.
///
/// Raised by ``SchemaDeployment`` and the schema administration methods of
/// ``RecordStore`` (`stratus schema import|deploy`). The message names the
/// record type, field or key at fault.
///
/// ```swift
/// do {
///     _ = try await store.deploySchema(container: "iCloud.com.example.Notes")
/// } catch let error as SchemaError where error.code == .incompatibleChange {
///     print(error.message)  // field 'due' of record type 'Task' is TIMESTAMP in production …
/// }
/// ```
public struct SchemaError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure; open, so new kinds can be added without breaking callers.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public var rawValue: String

        /// Creates a code.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The document is not JSON, or not shaped like a schema.
        public static let invalidDocument = Code(rawValue: "invalidDocument")
        /// A type name, field name, field type or index flag breaks the schema rules.
        public static let invalidSchema = Code(rawValue: "invalidSchema")
        /// The change would remove or retype something; schema changes may only add.
        public static let incompatibleChange = Code(rawValue: "incompatibleChange")
        /// The container was never created.
        public static let containerNotFound = Code(rawValue: "containerNotFound")

        /// The code's name.
        public var description: String { rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// What is wrong, naming the record type, field or key.
    public var message: String
    /// The record type at fault, when there is one.
    public var recordType: String?
    /// The field at fault, when there is one.
    public var field: String?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: What is wrong, naming the culprit.
    ///   - recordType: The record type at fault.
    ///   - field: The field at fault.
    public init(_ code: Code, _ message: String, recordType: String? = nil, field: String? = nil) {
        self.code = code
        self.message = message
        self.recordType = recordType
        self.field = field
    }

    /// The message.
    public var description: String { message }
}
