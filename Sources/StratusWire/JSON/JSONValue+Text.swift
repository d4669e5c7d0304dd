public import Foundation

extension JSONValue {
    /// Parses UTF-8 JSON text, keeping integers (`Int64`) and doubles apart.
    ///
    /// Integers that do not fit in `Int64` become doubles. Nesting deeper than
    /// 512 levels, invalid UTF-8, lone surrogates and trailing garbage are rejected.
    ///
    /// - Parameter data: The JSON text.
    /// - Throws: ``WireError`` with code ``WireError/Code/invalidJSON`` naming the byte offset.
    public init(parsing data: Data) throws(WireError) {
        var parser = JSONParser(bytes: Array(data))
        self = try parser.parseDocument()
    }

    /// Parses JSON text held in a string.
    ///
    /// - Parameter text: The JSON text.
    /// - Throws: ``WireError`` with code ``WireError/Code/invalidJSON``.
    public init(parsing text: String) throws(WireError) {
        var parser = JSONParser(bytes: Array(text.utf8))
        self = try parser.parseDocument()
    }

    /// Serializes the value as canonical JSON: sorted keys, unescaped slashes, and
    /// doubles always written with a fraction or exponent (`2.0`, never `2`).
    ///
    /// - Parameter prettyPrinted: Indent nested values by two spaces per level.
    /// - Returns: UTF-8 JSON text.
    /// - Throws: ``WireError`` with code ``WireError/Code/invalidValue`` for NaN or infinite doubles.
    public func serialized(prettyPrinted: Bool = false) throws(WireError) -> Data {
        var writer = JSONWriter(prettyPrinted: prettyPrinted)
        try writer.write(self, depth: 0)
        return Data(writer.output)
    }

    /// The canonical JSON text of the value, as ``serialized(prettyPrinted:)`` writes it.
    ///
    /// - Parameter prettyPrinted: Indent nested values by two spaces per level.
    /// - Returns: The JSON text.
    /// - Throws: ``WireError`` for NaN or infinite doubles.
    public func serializedString(prettyPrinted: Bool = false) throws(WireError) -> String {
        var writer = JSONWriter(prettyPrinted: prettyPrinted)
        try writer.write(self, depth: 0)
        return String(decoding: writer.output, as: UTF8.self)
    }
}
