public import Foundation

/// The shared JSON configuration for CloudKit Web Services bodies.
///
/// Use ``encode(_:numbersAsStrings:prettyPrinted:)`` and ``decode(_:from:fieldTypes:)`` for
/// request and response bodies. They go through ``JSONValue``, so integers are exact, whole-number
/// doubles stay doubles (`2.0`), keys are sorted and `/` is not escaped: the output is byte-for-byte
/// deterministic. Errors are always ``WireError`` with a path.
///
/// ```swift
/// let request = try WireCoding.decode(RecordsQuery.Request.self, from: body)
/// let data = try WireCoding.encode(response, numbersAsStrings: request.numbersAsStrings ?? false)
/// ```
///
/// How the server honours `numbersAsStrings`: read the flag from the request (for `changes/zone`
/// also the misspelt `numberAsStrings`, see ``ZoneChanges/Request/numbersAsStrings``) and pass it
/// to ``encode(_:numbersAsStrings:prettyPrinted:)`` when writing the response. Only
/// ``FieldValue`` looks at the flag: `INT64`, `DOUBLE` and `TIMESTAMP` values and the elements
/// of their `*_LIST`s are written as JSON strings (`"42"`, `"1.5"`, `"1747999812000"`). Numbers
/// inside LOCATION and ASSETID dictionaries, system timestamps (`created.timestamp`) and other
/// numeric keys (`size`, `retryAfter`) stay JSON numbers.
///
/// Foundation's `JSONEncoder`/`JSONDecoder` also work with every type here; ``encoder(numbersAsStrings:)``
/// and ``decoder(fieldTypes:)`` return ones configured the same way, but they write `2.0` as `2`
/// (harmless: DOUBLE values always carry their `type` tag).
public enum WireCoding {
    /// The `userInfo` key holding a `Bool`: write number field values as strings.
    public static let numbersAsStringsKey = makeKey("com.stratus.wire.numbersAsStrings")

    /// The `userInfo` key holding a ``FieldTypeLookup`` used to decode untagged record fields.
    public static let fieldTypesKey = makeKey("com.stratus.wire.fieldTypes")

    private static func makeKey(_ name: String) -> CodingUserInfoKey {
        guard let key = CodingUserInfoKey(rawValue: name) else {
            preconditionFailure("CodingUserInfoKey rejected the name \(name)")
        }
        return key
    }

    /// Encodes a wire value as canonical JSON text.
    ///
    /// - Parameters:
    ///   - value: The request or response body.
    ///   - numbersAsStrings: Write `INT64`, `DOUBLE` and `TIMESTAMP` field values as JSON strings.
    ///   - prettyPrinted: Indent the output (for logs and fixtures).
    /// - Returns: UTF-8 JSON with sorted keys.
    /// - Throws: ``WireError`` if a value cannot be represented (a NaN double, say).
    public static func encode(
        _ value: some Encodable, numbersAsStrings: Bool = false, prettyPrinted: Bool = false
    ) throws(WireError) -> Data {
        if !prettyPrinted, let direct = value as? any JSONDirectEncodable {
            // NB: records and the bodies that carry them write their bytes directly (no tree, no
            // Codable); on any failure the reference path below runs and reports the error.
            do {
                return Data(try encodeDirect(direct, numbersAsStrings: numbersAsStrings))
            } catch {}
        }
        return try encodeReference(value, numbersAsStrings: numbersAsStrings, prettyPrinted: prettyPrinted)
    }

    /// The reference encoding: `Codable` into a ``JSONValue`` tree, then the tree writer.
    static func encodeReference(
        _ value: some Encodable, numbersAsStrings: Bool, prettyPrinted: Bool = false
    ) throws(WireError) -> Data {
        try encodeJSON(value, numbersAsStrings: numbersAsStrings).serialized(prettyPrinted: prettyPrinted)
    }

    /// The direct encoding of a type that writes itself; the same bytes as ``encodeReference(_:numbersAsStrings:prettyPrinted:)``.
    static func encodeDirect(_ value: some JSONDirectEncodable, numbersAsStrings: Bool) throws(WireError) -> [UInt8] {
        var writer = JSONWriter(prettyPrinted: false, numbersAsStrings: numbersAsStrings, capacity: 4096)
        try value.writeJSON(to: &writer)
        return writer.output
    }

    /// Encodes a wire value into a ``JSONValue`` tree.
    ///
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - numbersAsStrings: Write `INT64`, `DOUBLE` and `TIMESTAMP` field values as JSON strings.
    /// - Returns: The JSON tree.
    /// - Throws: ``WireError`` if a value cannot be represented.
    public static func encodeJSON(_ value: some Encodable, numbersAsStrings: Bool = false) throws(WireError) -> JSONValue {
        do {
            return try JSONValueEncoder.encode(value, userInfo: [numbersAsStringsKey: numbersAsStrings])
        } catch {
            throw wireError(from: error)
        }
    }

    /// Decodes a wire value from JSON text.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: UTF-8 JSON text.
    ///   - fieldTypes: Optional schema lookup used to interpret untagged record field values.
    /// - Returns: The decoded value.
    /// - Throws: ``WireError`` naming the problem and the path of the bad key.
    public static func decode<T: Decodable>(
        _ type: T.Type, from data: Data, fieldTypes: FieldTypeLookup? = nil
    ) throws(WireError) -> T {
        try decode(type, from: JSONValue(parsing: data), fieldTypes: fieldTypes)
    }

    /// Decodes a wire value from an already parsed ``JSONValue``.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - json: The JSON tree.
    ///   - fieldTypes: Optional schema lookup used to interpret untagged record field values.
    /// - Returns: The decoded value.
    /// - Throws: ``WireError`` naming the problem and the path of the bad key.
    public static func decode<T: Decodable>(
        _ type: T.Type, from json: JSONValue, fieldTypes: FieldTypeLookup? = nil
    ) throws(WireError) -> T {
        if let direct = type as? any JSONDirectDecodable.Type {
            // NB: records-bearing bodies are read directly from the tree; the direct reader throws
            // exactly when the reference decoder would, and then the reference decoder runs to
            // report the error with its message and path.
            do {
                if let value = try decodeDirect(direct, from: json, fieldTypes: fieldTypes) as? T { return value }
            } catch {}
        }
        return try decodeReference(type, from: json, fieldTypes: fieldTypes)
    }

    /// The reference decoding: `Codable` over the ``JSONValue`` tree.
    static func decodeReference<T: Decodable>(
        _ type: T.Type, from json: JSONValue, fieldTypes: FieldTypeLookup?
    ) throws(WireError) -> T {
        var userInfo: [CodingUserInfoKey: Any] = [:]
        if let fieldTypes { userInfo[fieldTypesKey] = fieldTypes }
        let decoder = JSONValueDecoder(value: json, codingPath: [], userInfo: userInfo)
        do {
            return try decoder.unbox(json, as: type, at: [])
        } catch {
            throw wireError(from: error)
        }
    }

    /// The direct decoding of a type that reads itself; throws where ``decodeReference(_:from:fieldTypes:)`` would.
    static func decodeDirect<T: JSONDirectDecodable>(
        _ type: T.Type, from json: JSONValue, fieldTypes: FieldTypeLookup?
    ) throws(WireError) -> T {
        try T(directJSON: json, context: JSONDirectDecoding(fieldTypes: fieldTypes))
    }

    /// A Foundation `JSONEncoder` configured like ``encode(_:numbersAsStrings:prettyPrinted:)``.
    ///
    /// - Parameter numbersAsStrings: Write `INT64`, `DOUBLE` and `TIMESTAMP` field values as JSON strings.
    /// - Returns: An encoder with sorted keys and unescaped slashes.
    public static func encoder(numbersAsStrings: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.userInfo[numbersAsStringsKey] = numbersAsStrings
        return encoder
    }

    /// A Foundation `JSONDecoder` for wire values.
    ///
    /// - Parameter fieldTypes: Optional schema lookup used to interpret untagged record field values.
    /// - Returns: A decoder; prefer ``decode(_:from:fieldTypes:)``, which keeps `2.0` a double.
    public static func decoder(fieldTypes: FieldTypeLookup? = nil) -> JSONDecoder {
        let decoder = JSONDecoder()
        if let fieldTypes { decoder.userInfo[fieldTypesKey] = fieldTypes }
        return decoder
    }

    /// Converts any error raised while coding into a ``WireError``.
    ///
    /// - Parameter error: A `WireError`, `DecodingError`, `EncodingError` or anything else.
    /// - Returns: The error as a ``WireError`` (unchanged if it already is one).
    public static func wireError(from error: any Error) -> WireError {
        switch error {
        case let error as WireError:
            return error
        case let error as DecodingError:
            return WireError(error)
        case EncodingError.invalidValue(_, let context):
            return WireError(
                code: .invalidValue, message: context.debugDescription,
                codingPath: renderCodingPath(context.codingPath), underlying: error)
        default:
            return WireError(code: .invalidValue, message: "\(error)", underlying: error)
        }
    }

    /// Whether an encoder was asked to write number field values as strings.
    static func numbersAsStrings(in encoder: any Encoder) -> Bool {
        encoder.userInfo[numbersAsStringsKey] as? Bool ?? false
    }
}
