/// A wire type that writes its canonical JSON straight into a ``JSONWriter``, without `Codable`.
///
/// The `Codable` conformance stays the reference: ``WireCoding/encode(_:numbersAsStrings:prettyPrinted:)``
/// uses `writeJSON(to:)` for compact output and must produce exactly the bytes that
/// `WireCoding.encodeJSON(value).serialized()` produces (sorted keys, same escaping, same number
/// formatting; `DirectCodingEquivalenceTests` checks this on random records). Conforming types write
/// their members in sorted key order with ``JSONWriter/beginMember(_:first:)``.
protocol JSONDirectEncodable: Encodable {
    /// Writes the value's canonical JSON; honours ``JSONWriter/numbersAsStrings``.
    func writeJSON(to writer: inout JSONWriter) throws(WireError)
}

/// A wire type that reads itself straight from a ``JSONValue`` tree, without `Codable`.
///
/// The direct reader only has to be right for input the reference `init(from:)` accepts: it must
/// produce the same value, and it must throw whenever the reference would throw. It does not build
/// coding paths or error messages; when it throws, ``WireCoding`` runs the reference decoder, which
/// reports the error with its message and path. So errors are the reference's by construction.
protocol JSONDirectDecodable: Decodable {
    /// Reads the value, or throws ``JSONDirectDecoding/declined`` where the reference decoder would fail.
    init(directJSON json: JSONValue, context: JSONDirectDecoding) throws(WireError)
}

/// What a direct reader needs besides the JSON: the schema lookup and the reference decoder's `userInfo`.
struct JSONDirectDecoding {
    let fieldTypes: FieldTypeLookup?
    let userInfo: [CodingUserInfoKey: Any]

    /// Thrown by direct readers; never surfaces (the reference decoder then reports the real error).
    static let declined = WireError(code: .invalidValue, message: "the direct JSON reader declined this input")

    init(fieldTypes: FieldTypeLookup?) {
        self.fieldTypes = fieldTypes
        var userInfo: [CodingUserInfoKey: Any] = [:]
        if let fieldTypes { userInfo[WireCoding.fieldTypesKey] = fieldTypes }
        self.userInfo = userInfo
    }

    // NB: each helper mirrors what `JSONValueDecoder` does for `decode`/`decodeIfPresent` of that type:
    // `decodeIfPresent` treats an explicit `null` as absent, and strings and booleans are never coerced.

    func string(_ json: JSONValue) throws(WireError) -> String {
        guard case .string(let string) = json else { throw Self.declined }
        return string
    }

    func optionalString(_ json: JSONValue) throws(WireError) -> String? {
        switch json {
        case .null: return nil
        case .string(let string): return string
        default: throw Self.declined
        }
    }

    func optionalBool(_ json: JSONValue) throws(WireError) -> Bool? {
        switch json {
        case .null: return nil
        case .bool(let bool): return bool
        default: throw Self.declined
        }
    }

    func optionalStrings(_ json: JSONValue) throws(WireError) -> [String]? {
        switch json {
        case .null: return nil
        case .array(let elements):
            var strings: [String] = []
            strings.reserveCapacity(elements.count)
            for element in elements { strings.append(try string(element)) }
            return strings
        default: throw Self.declined
        }
    }

    func optional<T: JSONDirectDecodable>(_ type: T.Type, _ json: JSONValue) throws(WireError) -> T? {
        if case .null = json { return nil }
        return try T(directJSON: json, context: self)
    }

    /// Decodes a rarely used member (share participants, say) through the reference decoder.
    func optionalCodable<T: Decodable>(_ type: T.Type, _ json: JSONValue) throws(WireError) -> T? {
        if case .null = json { return nil }
        do {
            return try JSONValueDecoder(value: json, codingPath: [], userInfo: userInfo).unbox(json, as: type, at: [])
        } catch {
            throw Self.declined
        }
    }
}

extension JSONWriter {
    /// Writes a rarely used member (share participants, say) through the reference encoder.
    mutating func writeEncodable<T: Encodable>(_ value: T) throws(WireError) {
        let json: JSONValue
        do {
            json = try JSONValueEncoder.encode(value, userInfo: [WireCoding.numbersAsStringsKey: numbersAsStrings])
        } catch {
            throw WireCoding.wireError(from: error)
        }
        try write(json, depth: 0)
    }

    mutating func writeArray<T: JSONDirectEncodable>(_ values: [T]) throws(WireError) {
        writeByte(UInt8(ascii: "["))
        for (offset, value) in values.enumerated() {
            if offset > 0 { writeByte(UInt8(ascii: ",")) }
            try value.writeJSON(to: &self)
        }
        writeByte(UInt8(ascii: "]"))
    }

    mutating func writeStrings(_ values: [String]) {
        writeByte(UInt8(ascii: "["))
        for (offset, value) in values.enumerated() {
            if offset > 0 { writeByte(UInt8(ascii: ",")) }
            writeString(value)
        }
        writeByte(UInt8(ascii: "]"))
    }
}
