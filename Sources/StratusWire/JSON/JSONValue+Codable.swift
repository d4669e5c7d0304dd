extension JSONValue: Codable {
    /// Decodes any JSON value.
    ///
    /// With ``WireCoding``'s decoder the value is taken verbatim, so `2.0` stays a double and
    /// integers beyond 2^53 stay exact. With Foundation's `JSONDecoder` a whole-number double
    /// such as `2.0` cannot be told apart from `2` and decodes as ``integer(_:)``.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` if the decoder cannot produce any JSON value.
    public init(from decoder: any Decoder) throws {
        if let decoder = decoder as? JSONValueDecoder {
            self = decoder.value
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
            return
        }
        // NB: probing order matters: Bool before numbers, Int64 before Double. A failed probe is
        // not an error: Foundation reports "1.5 is not an Int64" with an internal error type, so any
        // error moves on to the next kind; the last probe's error propagates.
        do { self = .bool(try container.decode(Bool.self)); return } catch {}
        do { self = .integer(try container.decode(Int64.self)); return } catch {}
        do { self = .double(try container.decode(Double.self)); return } catch {}
        do { self = .string(try container.decode(String.self)); return } catch {}
        do { self = .array(try container.decode([JSONValue].self)); return } catch {}
        self = .object(try container.decode([String: JSONValue].self))
    }

    /// Encodes the value as the JSON it represents.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws (Foundation rejects NaN and infinity).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let bool): try container.encode(bool)
        case .integer(let integer): try container.encode(integer)
        case .double(let double): try container.encode(double)
        case .string(let string): try container.encode(string)
        case .array(let elements): try container.encode(elements)
        case .object(let members): try container.encode(members)
        }
    }
}
