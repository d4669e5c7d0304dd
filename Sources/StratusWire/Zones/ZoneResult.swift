/// One entry of a `zones` array in a response: a zone, or a zone fetch error.
///
/// Decoding tells them apart by the presence of `serverErrorCode`.
public enum ZoneResult: Hashable, Sendable, Codable {
    /// The zone.
    case zone(Zone)
    /// The per-zone failure.
    case error(ZoneFetchError)

    /// Decodes a zone or, when `serverErrorCode` is present, a zone fetch error.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: ``WireError`` or `DecodingError` naming the path of the bad key.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: WireCodingKey.self)
        if container.contains(WireCodingKey("serverErrorCode")) {
            self = .error(try ZoneFetchError(from: decoder))
        } else {
            self = .zone(try Zone(from: decoder))
        }
    }

    /// Encodes the zone or the error dictionary.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .zone(let zone): try zone.encode(to: encoder)
        case .error(let error): try error.encode(to: encoder)
        }
    }

    /// The zone, if this entry succeeded.
    public var zone: Zone? {
        guard case .zone(let zone) = self else { return nil }
        return zone
    }

    /// The error, if this entry failed.
    public var error: ZoneFetchError? {
        guard case .error(let error) = self else { return nil }
        return error
    }
}
