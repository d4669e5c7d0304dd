import Foundation

/// One node of the tree an encoding builds; turned into a ``JSONValue`` at the end.
final class EncodingNode {
    var value: JSONValue?
    var object: [String: EncodingNode]?
    var array: [EncodingNode]?

    init() {}

    init(_ value: JSONValue) {
        self.value = value
    }

    func finish() -> JSONValue {
        if let value { return value }
        if let array { return .array(array.map { $0.finish() }) }
        if let object { return .object(object.mapValues { $0.finish() }) }
        return .object([:])
    }
}

/// An `Encoder` that produces a ``JSONValue`` instead of bytes, keeping doubles distinct.
final class JSONValueEncoder: Encoder {
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]
    let node: EncodingNode

    init(codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any], node: EncodingNode = EncodingNode()) {
        self.codingPath = codingPath
        self.userInfo = userInfo
        self.node = node
    }

    static func encode(_ value: some Encodable, userInfo: [CodingUserInfoKey: Any]) throws -> JSONValue {
        let encoder = JSONValueEncoder(codingPath: [], userInfo: userInfo)
        return try encoder.box(value, at: []).finish()
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.object == nil { node.object = [:] }
        return KeyedEncodingContainer(KeyedEncoding<Key>(encoder: self, node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.array == nil { node.array = [] }
        return UnkeyedEncoding(encoder: self, node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueEncoding(encoder: self, node: node, codingPath: codingPath)
    }

    /// Encodes `value` into a fresh node, with fast paths for JSON primitives.
    func box<T: Encodable>(_ value: T, at path: [any CodingKey]) throws -> EncodingNode {
        switch value {
        case let json as JSONValue: return EncodingNode(json)
        case let bool as Bool: return EncodingNode(.bool(bool))
        case let string as String: return EncodingNode(.string(string))
        case let double as Double: return EncodingNode(.double(double))
        case let float as Float: return EncodingNode(.double(Double(float)))
        case let integer as any BinaryInteger:
            guard let exact = Int64(exactly: integer) else {
                throw EncodingError.invalidValue(
                    value, .init(codingPath: path, debugDescription: "\(integer) does not fit in a 64-bit signed integer"))
            }
            return EncodingNode(.integer(exact))
        case let url as URL: return EncodingNode(.string(url.absoluteString))
        default:
            let child = EncodingNode()
            try value.encode(to: JSONValueEncoder(codingPath: path, userInfo: userInfo, node: child))
            return child
        }
    }
}

private struct KeyedEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: JSONValueEncoder
    let node: EncodingNode
    let codingPath: [any CodingKey]

    private func set(_ child: EncodingNode, for key: Key) {
        let name = key.stringValue
        node.object?[name] = child
    }

    mutating func encodeNil(forKey key: Key) { set(EncodingNode(.null), for: key) }
    mutating func encode(_ value: Bool, forKey key: Key) { set(EncodingNode(.bool(value)), for: key) }
    mutating func encode(_ value: String, forKey key: Key) { set(EncodingNode(.string(value)), for: key) }
    mutating func encode(_ value: Double, forKey key: Key) { set(EncodingNode(.double(value)), for: key) }
    mutating func encode(_ value: Float, forKey key: Key) { set(EncodingNode(.double(Double(value))), for: key) }
    mutating func encode(_ value: Int, forKey key: Key) { set(EncodingNode(.integer(Int64(value))), for: key) }
    mutating func encode(_ value: Int8, forKey key: Key) { set(EncodingNode(.integer(Int64(value))), for: key) }
    mutating func encode(_ value: Int16, forKey key: Key) { set(EncodingNode(.integer(Int64(value))), for: key) }
    mutating func encode(_ value: Int32, forKey key: Key) { set(EncodingNode(.integer(Int64(value))), for: key) }
    mutating func encode(_ value: Int64, forKey key: Key) { set(EncodingNode(.integer(value)), for: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encodeGeneric(value, forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) { set(EncodingNode(.integer(Int64(value))), for: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) { set(EncodingNode(.integer(Int64(value))), for: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) { set(EncodingNode(.integer(Int64(value))), for: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try encodeGeneric(value, forKey: key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encodeGeneric(value, forKey: key)
    }

    private mutating func encodeGeneric<T: Encodable>(_ value: T, forKey key: Key) throws {
        let child = try encoder.box(value, at: codingPath + [key])
        set(child, for: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = EncodingNode()
        child.object = [:]
        set(child, for: key)
        let nested = JSONValueEncoder(codingPath: codingPath + [key], userInfo: encoder.userInfo, node: child)
        return nested.container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = EncodingNode()
        child.array = []
        set(child, for: key)
        return JSONValueEncoder(codingPath: codingPath + [key], userInfo: encoder.userInfo, node: child).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(forKey: Key(stringValue: "super") ?? failKey())
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let child = EncodingNode()
        set(child, for: key)
        return JSONValueEncoder(codingPath: codingPath + [key], userInfo: encoder.userInfo, node: child)
    }

    private func failKey() -> Key {
        preconditionFailure("superEncoder() needs a coding key type that accepts the string \"super\"")
    }
}

private struct UnkeyedEncoding: UnkeyedEncodingContainer {
    let encoder: JSONValueEncoder
    let node: EncodingNode
    let codingPath: [any CodingKey]

    var count: Int { node.array?.count ?? 0 }

    private var nextPath: [any CodingKey] { codingPath + [WireCodingKey(index: count)] }

    mutating func encodeNil() { node.array?.append(EncodingNode(.null)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let child = try encoder.box(value, at: nextPath)
        node.array?.append(child)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = EncodingNode()
        child.object = [:]
        let path = nextPath
        node.array?.append(child)
        return JSONValueEncoder(codingPath: path, userInfo: encoder.userInfo, node: child).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = EncodingNode()
        child.array = []
        let path = nextPath
        node.array?.append(child)
        return JSONValueEncoder(codingPath: path, userInfo: encoder.userInfo, node: child).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let child = EncodingNode()
        let path = nextPath
        node.array?.append(child)
        return JSONValueEncoder(codingPath: path, userInfo: encoder.userInfo, node: child)
    }
}

private struct SingleValueEncoding: SingleValueEncodingContainer {
    let encoder: JSONValueEncoder
    let node: EncodingNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() { node.value = .null }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let boxed = try encoder.box(value, at: codingPath)
        node.value = boxed.value
        node.object = boxed.object
        node.array = boxed.array
    }
}
