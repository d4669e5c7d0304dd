/// An error thrown while reading or writing CloudKit Web Services JSON.
///
/// Every decoder in `StratusWire` fails loudly with a `WireError` (or a
/// Foundation `DecodingError`, which ``init(_:)`` converts) that names the
/// problem and the path of the offending key:
///
/// ```swift
/// import Foundation
/// import StratusWire
///
/// func check(_ body: Data) {
///     do {
///         _ = try WireCoding.decode(RecordsModify.Request.self, from: body)
///     } catch let error as WireError {
///         print(error.reason)  // "missing key 'recordType' at operations[0].record"
///     } catch {
///         print(error)
///     }
/// }
/// ```
///
/// The HTTP layer turns ``reason`` into a `BAD_REQUEST` response body.
public struct WireError: Error, Sendable, CustomStringConvertible {
    /// An open set of wire error codes; new codes may be added without breaking clients.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name.
        public var rawValue: String

        /// Creates a code from its name.
        ///
        /// - Parameter rawValue: The code's name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The code's name.
        public var description: String { rawValue }

        /// The bytes are not well-formed JSON.
        public static let invalidJSON = Code(rawValue: "invalidJSON")
        /// A required key is absent.
        public static let missingKey = Code(rawValue: "missingKey")
        /// A value has the wrong JSON kind (a string where a number belongs, …).
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// A value has the right kind but is not acceptable (out of range, unknown enum case, …).
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// A field value contradicts its `type` tag or the type the schema expects.
        public static let fieldTypeMismatch = Code(rawValue: "fieldTypeMismatch")
        /// A field value's `type` tag is not a known CloudKit type.
        public static let unknownFieldType = Code(rawValue: "unknownFieldType")
        /// The type of an untagged field value cannot be inferred from its shape.
        public static let ambiguousFieldValue = Code(rawValue: "ambiguousFieldValue")
        /// A TIMESTAMP is not a whole number of milliseconds.
        public static let fractionalTimestamp = Code(rawValue: "fractionalTimestamp")
        /// A BYTES value is not valid base64.
        public static let invalidBase64 = Code(rawValue: "invalidBase64")
        /// An operation lacks something its `operationType` requires (a change tag, a record name, …).
        public static let invalidOperation = Code(rawValue: "invalidOperation")
        /// A path does not name a CloudKit Web Services endpoint.
        public static let invalidPath = Code(rawValue: "invalidPath")
    }

    /// What went wrong.
    public var code: Code
    /// The problem, without the path ("missing key 'recordType'").
    public var message: String
    /// The path of the offending value, like `operations[3].record.fields.due.value`; empty at the top level.
    public var codingPath: String
    /// The error this one wraps, if any (a `DecodingError`, say).
    public var underlying: (any Error)?

    /// Creates a wire error.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - message: The problem, without the path.
    ///   - codingPath: The path of the offending value; empty at the top level.
    ///   - underlying: An error this one wraps.
    public init(code: Code, message: String, codingPath: String = "", underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.codingPath = codingPath
        self.underlying = underlying
    }

    /// Creates a wire error whose path is rendered from coding keys.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - message: The problem, without the path.
    ///   - codingPath: The coding keys leading to the offending value.
    public init(code: Code, message: String, codingPath: [any CodingKey]) {
        self.init(code: code, message: message, codingPath: renderCodingPath(codingPath))
    }

    /// The message followed by the path: `missing key 'recordType' at operations[0].record`.
    ///
    /// Suitable as the `reason` of a `BAD_REQUEST` ``ErrorResponse``.
    public var reason: String {
        codingPath.isEmpty ? message : "\(message) at \(codingPath)"
    }

    /// Same as ``reason``.
    public var description: String { reason }
}

extension WireError.Code {
    /// Matches an error against a code, so `catch` clauses and `switch` can test families of codes.
    ///
    /// - Parameters:
    ///   - code: The code to match.
    ///   - error: The error being matched.
    /// - Returns: Whether `error` is a ``WireError`` with this code.
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? WireError)?.code == code
    }
}
