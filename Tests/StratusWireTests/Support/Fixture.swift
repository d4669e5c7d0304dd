import Foundation
import StratusWire
import Testing

/// Loads golden JSON fixtures from `Fixtures/` and checks exact round trips.
enum Fixture {
    static func data(_ name: String) throws -> Data {
        let url = try #require(
            Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"),
            "missing fixture \(name).json")
        return try Data(contentsOf: url)
    }

    static func json(_ name: String) throws -> JSONValue {
        try JSONValue(parsing: data(name))
    }

    /// Decodes the fixture as `T`, re-encodes it, and expects the same JSON (integers vs doubles included).
    @discardableResult
    static func roundTrip<T: Codable>(_ type: T.Type, _ name: String) throws -> T {
        let original = try json(name)
        let decoded = try WireCoding.decode(type, from: data(name))
        let encoded = try WireCoding.encodeJSON(decoded)
        let rendered = try encoded.serializedString(prettyPrinted: true)
        #expect(encoded == original, "\(name) did not round-trip:\n\(rendered)")
        // Byte-level determinism: encoding the re-parsed canonical text gives the same bytes.
        let bytes = try WireCoding.encode(decoded)
        let again = try WireCoding.encode(WireCoding.decode(type, from: bytes))
        #expect(bytes == again)
        return decoded
    }
}

/// Expects `body` to throw a ``WireError`` with `code`, and returns it.
@discardableResult
func expectWireError<R>(
    _ code: WireError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R
) -> WireError? {
    let error = #expect(throws: WireError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, "got \(String(describing: error))", sourceLocation: sourceLocation)
    return error
}
