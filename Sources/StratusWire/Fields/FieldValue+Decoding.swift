import Foundation

extension FieldValue {
    /// Reads a field value dictionary `{"value": …, "type": …}`, checking or inferring its type.
    ///
    /// Rules, in order:
    /// 1. A `type` tag wins. The value must fit it: a string tagged TIMESTAMP throws, never coerces.
    ///    Tagged INT64, DOUBLE and TIMESTAMP also accept numeric strings (`numbersAsStrings`).
    ///    `ASSET`/`ASSET_LIST` mean `ASSETID`/`ASSETID_LIST`. An `UNKNOWN_LIST` must be empty.
    /// 2. If both a tag and `expected` are given they must agree (an empty `UNKNOWN_LIST` takes the
    ///    expected list type).
    /// 3. Untagged with `expected`: the value is read as that type — an epoch-ms integer aimed at
    ///    TIMESTAMP becomes a timestamp, a string aimed at BYTES is base64-decoded (invalid base64
    ///    throws), an integer aimed at DOUBLE becomes a double, a boolean aimed at INT64 becomes 0/1.
    /// 4. Untagged without `expected`: integer → INT64, other number → DOUBLE, string → STRING (never
    ///    BYTES), boolean → INT64 0/1, object with `recordName` → REFERENCE, with `latitude`/`longitude`
    ///    → LOCATION, with `fileChecksum` or `receipt` → ASSETID; an array → the list of its inferred
    ///    element type (elements must agree; integers mixed with doubles make a DOUBLE_LIST);
    ///    `[]` → ``emptyList``.
    ///
    /// ```swift
    /// let due = try FieldValue(json: ["value": 1_747_999_812_000], expecting: .timestamp)
    /// // .timestamp(1747999812000)
    /// ```
    ///
    /// - Parameters:
    ///   - json: The field value dictionary.
    ///   - expected: The schema type of the field, if known.
    ///   - codingPath: Where the dictionary sits, for error messages (`fields.due`).
    /// - Throws: ``WireError`` (``WireError/Code/fieldTypeMismatch``, ``WireError/Code/fractionalTimestamp``,
    ///   ``WireError/Code/invalidBase64``, …) naming the path, the expected type and the actual value.
    public init(json: JSONValue, expecting expected: FieldType? = nil, codingPath: [any CodingKey] = []) throws(WireError) {
        guard case .object(let members) = json else {
            throw WireError(
                code: .typeMismatch,
                message: "expected a field value object {\"value\": …} but found \(json.kindDescription)",
                codingPath: codingPath)
        }
        guard let value = members["value"] else {
            throw WireError(code: .missingKey, message: "missing key 'value'", codingPath: codingPath)
        }
        var tag: FieldType?
        switch members["type"] {
        case nil, .null?:
            tag = nil
        case .string(let name)?:
            guard let type = FieldType(rawValue: name) else {
                throw WireError(
                    code: .unknownFieldType, message: "unknown field type '\(name)'",
                    codingPath: codingPath + [WireCodingKey("type")])
            }
            tag = type
        case let other?:
            throw WireError(
                code: .typeMismatch, message: "expected the type tag to be a string but found \(other.kindDescription)",
                codingPath: codingPath + [WireCodingKey("type")])
        }
        try self.init(value: value, type: tag, expecting: expected, codingPath: codingPath + [WireCodingKey("value")])
    }

    /// Reads a bare field value (the contents of `"value"`) with an optional tag and schema type.
    ///
    /// - Parameters:
    ///   - value: The JSON value.
    ///   - tag: The `type` tag that accompanied it, if any.
    ///   - expected: The schema type of the field, if known.
    ///   - codingPath: Where the value sits, for error messages.
    /// - Throws: ``WireError`` as described in ``init(json:expecting:codingPath:)``.
    public init(
        value: JSONValue, type tag: FieldType?, expecting expected: FieldType? = nil, codingPath: [any CodingKey] = []
    ) throws(WireError) {
        if let tag, let expected, tag != expected {
            guard tag == .unknownList, expected.isList else {
                throw WireError(
                    code: .fieldTypeMismatch, message: "expected \(expected) but the value is tagged \(tag)",
                    codingPath: codingPath)
            }
        }
        if let target = expected ?? tag {
            var reader = FieldValueReader(tagged: tag != nil, source: tag != nil && expected == nil ? .tag : .schema)
            self = try reader.read(value, as: target, at: codingPath)
        } else {
            self = try FieldValueReader.infer(value, at: codingPath)
        }
    }
}

/// Converts JSON into field values of a known type, or infers the type.
private struct FieldValueReader {
    enum Source { case tag, schema }

    /// Whether a `type` tag was present (which allows numeric strings).
    let tagged: Bool
    /// Where the target type came from, for error wording.
    let source: Source

    init(tagged: Bool, source: Source) {
        self.tagged = tagged
        self.source = source
    }

    mutating func read(_ value: JSONValue, as type: FieldType, at path: [any CodingKey]) throws(WireError) -> FieldValue {
        switch type {
        case .string: return .string(try string(value, path))
        case .int64: return .int64(try int64(value, path))
        case .double: return .double(try double(value, path))
        case .timestamp: return .timestamp(try timestamp(value, path))
        case .bytes: return .bytes(try bytes(value, path))
        case .reference: return .reference(try reference(value, path))
        case .asset: return .asset(try dictionary(value, Asset.self, .asset, path))
        case .location: return .location(try dictionary(value, Location.self, .location, path))
        case .stringList: return .stringList(try list(value, type, path) { v, p throws(WireError) in try string(v, p) })
        case .int64List: return .int64List(try list(value, type, path) { v, p throws(WireError) in try int64(v, p) })
        case .doubleList: return .doubleList(try list(value, type, path) { v, p throws(WireError) in try double(v, p) })
        case .timestampList:
            return .timestampList(try list(value, type, path) { v, p throws(WireError) in try timestamp(v, p) })
        case .bytesList: return .bytesList(try list(value, type, path) { v, p throws(WireError) in try bytes(v, p) })
        case .referenceList:
            return .referenceList(
                try list(value, type, path) { v, p throws(WireError) in try reference(v, p) })
        case .assetList:
            return .assetList(try list(value, type, path) { v, p throws(WireError) in try dictionary(v, Asset.self, .asset, p) })
        case .locationList:
            return .locationList(
                try list(value, type, path) { v, p throws(WireError) in try dictionary(v, Location.self, .location, p) })
        case .unknownList:
            guard case .array(let elements) = value else { throw mismatch(.unknownList, value, path) }
            guard elements.isEmpty else {
                throw WireError(
                    code: .fieldTypeMismatch, message: "an UNKNOWN_LIST must be empty but has \(elements.count) elements",
                    codingPath: path)
            }
            return .emptyList
        }
    }

    static func infer(_ value: JSONValue, at path: [any CodingKey]) throws(WireError) -> FieldValue {
        var reader = FieldValueReader(tagged: false, source: .schema)
        guard case .array(let elements) = value else {
            guard let type = inferredScalarType(of: value) else { throw uninferable(value, path) }
            return try reader.read(value, as: type, at: path)
        }
        guard !elements.isEmpty else { return .emptyList }
        var elementType: FieldType?
        for (index, element) in elements.enumerated() {
            let elementPath = path + [WireCodingKey(index: index)]
            if case .array = element {
                throw WireError(code: .ambiguousFieldValue, message: "lists of lists are not supported", codingPath: elementPath)
            }
            guard let type = inferredScalarType(of: element) else { throw uninferable(element, elementPath) }
            switch (elementType, type) {
            case (nil, _): elementType = type
            case (let known?, _) where known == type: break
            case (.int64?, .double), (.double?, .int64): elementType = .double
            case (let known?, _):
                throw WireError(
                    code: .ambiguousFieldValue,
                    message: "untagged list mixes \(known) and \(type) elements; all elements must have one type",
                    codingPath: elementPath)
            }
        }
        guard let listType = elementType?.listType else { return .emptyList }
        return try reader.read(value, as: listType, at: path)
    }

    /// The type an untagged scalar would be inferred as, or `nil` if it cannot be inferred.
    static func inferredScalarType(of value: JSONValue) -> FieldType? {
        switch value {
        case .null, .array: return nil
        case .bool, .integer: return .int64
        case .double: return .double
        case .string: return .string
        case .object(let members):
            if members["recordName"] != nil { return .reference }
            if members["latitude"] != nil && members["longitude"] != nil { return .location }
            if members["fileChecksum"] != nil || members["receipt"] != nil { return .asset }
            return nil
        }
    }

    private static func uninferable(_ value: JSONValue, _ path: [any CodingKey]) -> WireError {
        let detail: String
        switch value {
        case .null: detail = "a field value cannot be null; omit the field instead"
        case .object:
            detail = "cannot infer the type of an object without recordName, latitude/longitude or fileChecksum/receipt; add a type tag"
        default: detail = "cannot infer the type of \(value.kindDescription); add a type tag"
        }
        return WireError(code: .ambiguousFieldValue, message: detail, codingPath: path)
    }

    private func mismatch(_ expected: FieldType, _ value: JSONValue, _ path: [any CodingKey]) -> WireError {
        var actual = value.kindDescription
        if let inferred = Self.inferredScalarType(of: value) { actual += " (\(inferred))" }
        let message =
            switch source {
            case .tag: "the type tag says \(expected) but the value is \(actual)"
            case .schema: "expected \(expected) but the value is \(actual)"
            }
        return WireError(code: .fieldTypeMismatch, message: message, codingPath: path)
    }

    private func string(_ value: JSONValue, _ path: [any CodingKey]) throws(WireError) -> String {
        guard case .string(let string) = value else { throw mismatch(.string, value, path) }
        return string
    }

    private func int64(_ value: JSONValue, _ path: [any CodingKey]) throws(WireError) -> Int64 {
        switch value {
        case .integer(let integer): return integer
        case .bool(let bool): return bool ? 1 : 0
        case .double(let double):
            guard let exact = Int64(exactly: double) else { throw mismatch(.int64, value, path) }
            return exact
        case .string(let text) where tagged:
            guard let integer = Int64(text) else { throw mismatch(.int64, value, path) }
            return integer
        default: throw mismatch(.int64, value, path)
        }
    }

    private func double(_ value: JSONValue, _ path: [any CodingKey]) throws(WireError) -> Double {
        switch value {
        case .double(let double): return double
        case .integer(let integer):
            guard let exact = Double(exactly: integer) else {
                throw WireError(
                    code: .fieldTypeMismatch, message: "integer \(integer) cannot be represented exactly as a DOUBLE",
                    codingPath: path)
            }
            return exact
        case .string(let text) where tagged:
            guard let double = Double(text), double.isFinite else { throw mismatch(.double, value, path) }
            return double
        default: throw mismatch(.double, value, path)
        }
    }

    private func timestamp(_ value: JSONValue, _ path: [any CodingKey]) throws(WireError) -> Timestamp {
        switch value {
        case .integer, .double: return try Timestamp(json: value, allowStrings: false, codingPath: path)
        case .string(let text) where tagged:
            guard Double(text) != nil else { throw mismatch(.timestamp, value, path) }
            return try Timestamp(json: value, allowStrings: true, codingPath: path)
        default: throw mismatch(.timestamp, value, path)
        }
    }

    private func bytes(_ value: JSONValue, _ path: [any CodingKey]) throws(WireError) -> Data {
        guard case .string(let text) = value else { throw mismatch(.bytes, value, path) }
        guard let data = Data(base64Encoded: text) else {
            throw WireError(code: .invalidBase64, message: "BYTES value is not valid base64", codingPath: path)
        }
        return data
    }

    /// A reference, read directly; what the direct reader declines goes to ``dictionary(_:_:_:_:)``,
    /// which reports the error (the direct reader accepts exactly what the `Codable` one does).
    private func reference(_ value: JSONValue, _ path: [any CodingKey]) throws(WireError) -> Reference {
        // NB: every note of a feed carries a reference; through `Codable` it was a tenth of a page's
        // decoding, on the server (stored fields) and in the client (the page) alike.
        if let reference = try? Reference(directJSON: value, context: JSONDirectDecoding(fieldTypes: nil)) { return reference }
        return try dictionary(value, Reference.self, .reference, path)
    }

    private func dictionary<T: Decodable>(
        _ value: JSONValue, _ type: T.Type, _ fieldType: FieldType, _ path: [any CodingKey]
    ) throws(WireError) -> T {
        guard case .object = value else { throw mismatch(fieldType, value, path) }
        do {
            return try JSONValueDecoder(value: value, codingPath: path, userInfo: [:]).unbox(value, as: type, at: path)
        } catch {
            throw WireCoding.wireError(from: error)
        }
    }

    private func list<Element>(
        _ value: JSONValue, _ type: FieldType, _ path: [any CodingKey],
        _ element: (JSONValue, [any CodingKey]) throws(WireError) -> Element
    ) throws(WireError) -> [Element] {
        guard case .array(let elements) = value else { throw mismatch(type, value, path) }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for (index, item) in elements.enumerated() {
            result.append(try element(item, path + [WireCodingKey(index: index)]))
        }
        return result
    }
}
