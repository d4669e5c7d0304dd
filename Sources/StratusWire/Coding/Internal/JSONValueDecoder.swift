/// A `Decoder` that reads a ``JSONValue``; integers stay exact and paths are tracked for errors.
struct JSONValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw DecodingError.typeMismatch(
                [String: JSONValue].self,
                .init(codingPath: codingPath, debugDescription: "Expected an object but found \(value.kindDescription) instead."))
        }
        return KeyedDecodingContainer(KeyedDecoding<Key>(decoder: self, members: members))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw DecodingError.typeMismatch(
                [JSONValue].self,
                .init(codingPath: codingPath, debugDescription: "Expected an array but found \(value.kindDescription) instead."))
        }
        return UnkeyedDecoding(decoder: self, elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueDecoding(decoder: self)
    }

    /// Decodes `type` from `value`, found at `path`.
    func unbox<T: Decodable>(_ value: JSONValue, as type: T.Type, at path: [any CodingKey]) throws -> T {
        let decoder = JSONValueDecoder(value: value, codingPath: path, userInfo: userInfo)
        if T.self == JSONValue.self, let json = value as? T { return json }
        return try T(from: decoder)
    }

    func mismatch(_ type: Any.Type, _ value: JSONValue, at path: [any CodingKey]) -> DecodingError {
        DecodingError.typeMismatch(
            type,
            .init(
                codingPath: path,
                debugDescription: "Expected to decode \(type) but found \(value.kindDescription) instead."))
    }

    func decodeBool(_ value: JSONValue, at path: [any CodingKey]) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(Bool.self, value, at: path) }
        return bool
    }

    func decodeString(_ value: JSONValue, at path: [any CodingKey]) throws -> String {
        guard case .string(let string) = value else { throw mismatch(String.self, value, at: path) }
        return string
    }

    func decodeDouble(_ value: JSONValue, at path: [any CodingKey]) throws -> Double {
        switch value {
        case .double(let double): return double
        case .integer(let integer): return Double(integer)
        default: throw mismatch(Double.self, value, at: path)
        }
    }

    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type, _ value: JSONValue, at path: [any CodingKey]) throws -> T {
        switch value {
        case .integer(let integer):
            guard let exact = T(exactly: integer) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: path, debugDescription: "number \(integer) does not fit in \(T.self)"))
            }
            return exact
        case .double(let double):
            guard let exact = T(exactly: double) else {
                throw DecodingError.typeMismatch(
                    T.self, .init(codingPath: path, debugDescription: "Expected to decode \(T.self) but found \(double) instead."))
            }
            return exact
        default:
            throw mismatch(T.self, value, at: path)
        }
    }
}

private struct KeyedDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: JSONValueDecoder
    let members: [String: JSONValue]

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "No value associated with key '\(key.stringValue)'."))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try decoder.decodeBool(member(key), at: codingPath + [key])
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try decoder.decodeString(member(key), at: codingPath + [key])
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try decoder.decodeDouble(member(key), at: codingPath + [key])
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try decoder.decodeInteger(type, member(key), at: codingPath + [key])
    }

    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try decoder.decodeInteger(type, member(key), at: codingPath + [key])
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.unbox(member(key), as: type, at: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try JSONValueDecoder(value: member(key), codingPath: codingPath + [key], userInfo: decoder.userInfo)
            .container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try JSONValueDecoder(value: member(key), codingPath: codingPath + [key], userInfo: decoder.userInfo)
            .unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let key = WireCodingKey("super")
        return JSONValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key], userInfo: decoder.userInfo)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key], userInfo: decoder.userInfo)
    }
}

private struct UnkeyedDecoding: UnkeyedDecodingContainer {
    let decoder: JSONValueDecoder
    let elements: [JSONValue]
    private(set) var currentIndex = 0

    init(decoder: JSONValueDecoder, elements: [JSONValue]) {
        self.decoder = decoder
        self.elements = elements
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private var currentPath: [any CodingKey] { codingPath + [WireCodingKey(index: currentIndex)] }

    private mutating func next<T>(_ type: T.Type) throws -> JSONValue {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: currentPath, debugDescription: "Unkeyed container is at end."))
        }
        defer { currentIndex += 1 }
        return elements[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                JSONValue.self, .init(codingPath: currentPath, debugDescription: "Unkeyed container is at end."))
        }
        if elements[currentIndex] == .null {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let path = currentPath
        return try decoder.unbox(next(type), as: type, at: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let path = currentPath
        return try JSONValueDecoder(value: next([String: JSONValue].self), codingPath: path, userInfo: decoder.userInfo)
            .container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let path = currentPath
        return try JSONValueDecoder(value: next([JSONValue].self), codingPath: path, userInfo: decoder.userInfo)
            .unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let path = currentPath
        return JSONValueDecoder(value: try next(JSONValue.self), codingPath: path, userInfo: decoder.userInfo)
    }
}

private struct SingleValueDecoding: SingleValueDecodingContainer {
    let decoder: JSONValueDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool(decoder.value, at: codingPath) }
    func decode(_ type: String.Type) throws -> String { try decoder.decodeString(decoder.value, at: codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decodeDouble(decoder.value, at: codingPath) }
    func decode(_ type: Float.Type) throws -> Float { Float(try decoder.decodeDouble(decoder.value, at: codingPath)) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(type, decoder.value, at: codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(type, decoder.value, at: codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(type, decoder.value, at: codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(type, decoder.value, at: codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(type, decoder.value, at: codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(type, decoder.value, at: codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(type, decoder.value, at: codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(type, decoder.value, at: codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(type, decoder.value, at: codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(type, decoder.value, at: codingPath) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.unbox(decoder.value, as: type, at: codingPath)
    }
}
