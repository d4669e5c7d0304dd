import Foundation

extension WireError {
    /// Converts a Foundation `DecodingError` into a wire error that names the path of the bad key.
    ///
    /// `keyNotFound` becomes ``Code/missingKey`` with the path of the container that lacks the key
    /// (`missing key 'recordType' at operations[0].record`); `typeMismatch` and `valueNotFound`
    /// become ``Code/typeMismatch``; `dataCorrupted` becomes ``Code/invalidValue`` (or
    /// ``Code/invalidJSON`` when the bytes were not JSON at all).
    ///
    /// - Parameter error: The decoding error.
    public init(_ error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            self.init(
                code: .missingKey, message: "missing key '\(key.stringValue)'",
                codingPath: renderCodingPath(context.codingPath), underlying: error)
        case .typeMismatch(let type, let context):
            self.init(
                code: .typeMismatch, message: Self.mismatchMessage(expected: type, context: context),
                codingPath: renderCodingPath(context.codingPath), underlying: error)
        case .valueNotFound(let type, let context):
            self.init(
                code: .typeMismatch, message: "expected \(Self.jsonName(of: type)) but found null",
                codingPath: renderCodingPath(context.codingPath), underlying: error)
        case .dataCorrupted(let context):
            let isSyntax = context.codingPath.isEmpty && context.underlyingError != nil
            self.init(
                code: isSyntax ? .invalidJSON : .invalidValue,
                message: isSyntax ? "invalid JSON" : context.debugDescription,
                codingPath: renderCodingPath(context.codingPath), underlying: error)
        @unknown default:
            self.init(code: .invalidValue, message: "\(error)", underlying: error)
        }
    }

    /// A one-line description of a `DecodingError` naming the path of the bad key.
    ///
    /// - Parameter error: The decoding error.
    /// - Returns: The same text as `WireError(error).reason`.
    public static func describe(_ error: DecodingError) -> String {
        WireError(error).reason
    }

    private static func mismatchMessage(expected type: Any.Type, context: DecodingError.Context) -> String {
        let description = context.debugDescription
        if let range = description.range(of: "but found ") {
            let found = description[range.upperBound...].replacingOccurrences(of: " instead.", with: "")
            return "expected \(jsonName(of: type)) but found \(found)"
        }
        return "expected \(jsonName(of: type)): \(description)"
    }

    static func jsonName(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Double.Type, is Float.Type: "a number"
        case is any BinaryInteger.Type: "an integer"
        case is [String: JSONValue].Type: "an object"
        case is [JSONValue].Type: "an array"
        default: "\(type)"
        }
    }
}
