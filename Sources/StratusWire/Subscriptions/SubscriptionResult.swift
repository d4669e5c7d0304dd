/// One entry of a `subscriptions` array in a response.
///
/// Decoding: `serverErrorCode` present ⇒ ``error(_:)``; `subscriptionType` present ⇒
/// ``subscription(_:)``; otherwise the bare delete acknowledgement `{"subscriptionID": …}`.
public enum SubscriptionResult: Hashable, Sendable, Codable {
    /// A full subscription (list, lookup, create, update).
    case subscription(Subscription)
    /// A delete acknowledgement: only the ID.
    case deleted(subscriptionID: String)
    /// The per-subscription failure.
    case error(SubscriptionFetchError)

    private enum CodingKeys: String, CodingKey {
        case subscriptionID, subscriptionType, serverErrorCode
    }

    /// Decodes a subscription, a delete acknowledgement or an error.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: ``WireError`` or `DecodingError` naming the path of the bad key.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.serverErrorCode) {
            self = .error(try SubscriptionFetchError(from: decoder))
        } else if container.contains(.subscriptionType) {
            self = .subscription(try Subscription(from: decoder))
        } else {
            self = .deleted(subscriptionID: try container.decode(String.self, forKey: .subscriptionID))
        }
    }

    /// Encodes the subscription, acknowledgement or error dictionary.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .subscription(let subscription): try subscription.encode(to: encoder)
        case .error(let error): try error.encode(to: encoder)
        case .deleted(let subscriptionID):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(subscriptionID, forKey: .subscriptionID)
        }
    }
}
