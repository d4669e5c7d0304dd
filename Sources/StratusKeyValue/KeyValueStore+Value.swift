public import Foundation

extension KeyValueStore {
    /// A value the store keeps: the property-list types of `NSUbiquitousKeyValueStore`, typed.
    ///
    /// ```swift
    /// import StratusKeyValue
    ///
    /// func savePreferences(in store: KeyValueStore) throws -> Int64? {
    ///     try store.set(.dictionary(["theme": "dark", "size": 14]), forKey: "prefs")
    ///     return store.dictionary(forKey: "prefs")?["size"]?.int64Value
    /// }
    /// ```
    public enum Value: Sendable, Hashable, Codable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
        ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
    {
        /// Text.
        case string(String)
        /// A 64-bit integer.
        case int64(Int64)
        /// A floating-point number.
        case double(Double)
        /// A Boolean.
        case bool(Bool)
        /// Bytes.
        case data(Data)
        /// A list of values.
        case array([Value])
        /// A dictionary of values.
        case dictionary([String: Value])

        /// Creates a string value.
        ///
        /// - Parameter value: The text.
        public init(stringLiteral value: String) { self = .string(value) }
        /// Creates an integer value.
        ///
        /// - Parameter value: The integer.
        public init(integerLiteral value: Int64) { self = .int64(value) }
        /// Creates a floating-point value.
        ///
        /// - Parameter value: The number.
        public init(floatLiteral value: Double) { self = .double(value) }
        /// Creates a Boolean value.
        ///
        /// - Parameter value: The Boolean.
        public init(booleanLiteral value: Bool) { self = .bool(value) }
        /// Creates a list value.
        ///
        /// - Parameter elements: The elements.
        public init(arrayLiteral elements: Value...) { self = .array(elements) }
        /// Creates a dictionary value.
        ///
        /// - Parameter elements: The entries; a repeated key keeps the last value.
        public init(dictionaryLiteral elements: (String, Value)...) {
            self = .dictionary(Dictionary(elements, uniquingKeysWith: { $1 }))
        }

        /// The text, if this is a string.
        public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
        /// The integer, if this is an integer (or a whole double).
        public var int64Value: Int64? {
            switch self {
            case .int64(let value): value
            case .double(let value): Int64(exactly: value)
            default: nil
            }
        }
        /// The number, if this is a double or an integer.
        public var doubleValue: Double? {
            switch self {
            case .double(let value): value
            case .int64(let value): Double(value)
            default: nil
            }
        }
        /// The Boolean, if this is a Boolean.
        public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
        /// The bytes, if this is data.
        public var dataValue: Data? { if case .data(let value) = self { value } else { nil } }
        /// The elements, if this is a list.
        public var arrayValue: [Value]? { if case .array(let value) = self { value } else { nil } }
        /// The entries, if this is a dictionary.
        public var dictionaryValue: [String: Value]? { if case .dictionary(let value) = self { value } else { nil } }

        private enum CodingKeys: String, CodingKey {
            case string = "s", int64 = "i", double = "d", bool = "b", data = "x", array = "a", dictionary = "o"
        }

        /// Decodes the tagged form `{"s": …}`, `{"i": …}`, ….
        ///
        /// - Parameter decoder: The decoder.
        /// - Throws: `DecodingError` when no known tag is present.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let value = try container.decodeIfPresent(String.self, forKey: .string) {
                self = .string(value)
            } else if let value = try container.decodeIfPresent(Int64.self, forKey: .int64) {
                self = .int64(value)
            } else if let value = try container.decodeIfPresent(Double.self, forKey: .double) {
                self = .double(value)
            } else if let value = try container.decodeIfPresent(Bool.self, forKey: .bool) {
                self = .bool(value)
            } else if let value = try container.decodeIfPresent(String.self, forKey: .data), let data = Data(base64Encoded: value) {
                self = .data(data)
            } else if let value = try container.decodeIfPresent([Value].self, forKey: .array) {
                self = .array(value)
            } else if let value = try container.decodeIfPresent([String: Value].self, forKey: .dictionary) {
                self = .dictionary(value)
            } else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "not a tagged key-value store value"))
            }
        }

        /// Encodes the tagged form.
        ///
        /// - Parameter encoder: The encoder.
        /// - Throws: What the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .string(let value): try container.encode(value, forKey: .string)
            case .int64(let value): try container.encode(value, forKey: .int64)
            case .double(let value): try container.encode(value, forKey: .double)
            case .bool(let value): try container.encode(value, forKey: .bool)
            case .data(let value): try container.encode(value.base64EncodedString(), forKey: .data)
            case .array(let value): try container.encode(value, forKey: .array)
            case .dictionary(let value): try container.encode(value, forKey: .dictionary)
            }
        }

        /// The bytes stored on the server (and counted by the limits): sorted-key JSON of the tagged form.
        func encoded() throws -> Data {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return try encoder.encode(self)
        }

        /// Decodes stored bytes.
        static func decoded(_ data: Data) throws -> Value {
            try JSONDecoder().decode(Value.self, from: data)
        }
    }
}
