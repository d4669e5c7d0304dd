public import Foundation
@testable public import StratusWire

/// The round-trip invariants every decodable wire body must keep.
///
/// For a body that decodes as `T`:
/// - the direct reader and the reference (`Codable`) decoder agree: both refuse, or both give
///   the same value;
/// - the value re-encodes to bytes that decode to the same value, and encoding that is a fixed
///   point (a decoded request re-encodes to the same bytes);
/// - the direct writer and the reference encoder write the same bytes;
/// - `numbersAsStrings` output decodes to the same value;
/// - a refusal is a ``WireError``, never a crash.
public enum WireRoundTrip {
    /// Checks the invariants for `input` decoded as `type`, with and without `fieldTypes`.
    ///
    /// - Parameters:
    ///   - type: The wire type.
    ///   - json: The parsed input.
    ///   - fieldTypes: A schema lookup for untagged field values.
    ///   - input: The raw input, for reports.
    public static func check<T: Codable & Hashable>(_ type: T.Type, _ json: JSONValue, fieldTypes: FieldTypeLookup?, _ input: Data) {
        let reference = Result { () throws(WireError) -> T in try WireCoding.decodeReference(T.self, from: json, fieldTypes: fieldTypes) }
        if let direct = T.self as? any JSONDirectDecodable.Type {
            let directValue = Result { () throws(WireError) -> any JSONDirectDecodable in
                try WireCoding.decodeDirect(direct, from: json, fieldTypes: fieldTypes)
            }
            switch (reference, directValue) {
            case (.success(let value), .success(let other)):
                FuzzCheck.that(other as? T == value, "\(T.self): the direct reader and the decoder give the same value", input)
            case (.failure, .failure):
                break
            case (.success, .failure(let error)):
                FuzzCheck.fail("\(T.self): the direct reader refused what the decoder took: \(error)", input)
            case (.failure(let error), .success):
                FuzzCheck.fail("\(T.self): the direct reader took what the decoder refused: \(error)", input)
            }
        }
        guard case .success(let value) = reference else { return }
        reencode(value, fieldTypes: fieldTypes, input)
    }

    private static func reencode<T: Codable & Hashable>(_ value: T, fieldTypes: FieldTypeLookup?, _ input: Data) {
        do {
            let bytes = try WireCoding.encode(value)
            let again = try WireCoding.decode(T.self, from: bytes, fieldTypes: fieldTypes)
            FuzzCheck.that(again == value, "\(T.self): encode → decode is the identity", input)
            FuzzCheck.that(try WireCoding.encode(again) == bytes, "\(T.self): a decoded body re-encodes to the same bytes", input)
            let reference = try WireCoding.encodeReference(value, numbersAsStrings: false)
            FuzzCheck.that(reference == bytes, "\(T.self): the direct writer and the encoder write the same bytes", input)
            let strings = try WireCoding.encode(value, numbersAsStrings: true)
            let fromStrings = try WireCoding.decode(T.self, from: strings, fieldTypes: fieldTypes)
            FuzzCheck.that(fromStrings == value, "\(T.self): numbersAsStrings output decodes to the same value", input)
        } catch {
            FuzzCheck.fail("\(T.self): a decoded value could not be re-encoded or decoded: \(error)", input)
        }
    }
}
