/// One entry of a `subscriptions/modify` request: `{"operationType": …, "subscription": {…}}`.
///
/// A delete needs only the ID, so it is written as `{"subscriptionID": …}` and any other keys
/// in a received delete are ignored.
///
/// CloudKit reference: Modifying Subscriptions (subscriptions/modify); Apple's CloudKit Web Services Reference: “subscriptions/modify”.
public enum SubscriptionOperation: Hashable, Sendable, Codable {
    /// Create a subscription.
    case create(Subscription)
    /// Replace a subscription.
    case update(Subscription)
    /// Delete a subscription by ID.
    case delete(subscriptionID: String)

    private enum CodingKeys: String, CodingKey {
        case operationType, subscription
    }

    private enum IDKeys: String, CodingKey {
        case subscriptionID
    }

    /// Decodes an operation.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: ``WireError`` for an unknown `operationType`, or `DecodingError` naming the path.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .operationType)
        switch type {
        case "create": self = .create(try container.decode(Subscription.self, forKey: .subscription))
        case "update": self = .update(try container.decode(Subscription.self, forKey: .subscription))
        case "delete":
            let ids = try container.nestedContainer(keyedBy: IDKeys.self, forKey: .subscription)
            self = .delete(subscriptionID: try ids.decode(String.self, forKey: .subscriptionID))
        default:
            throw WireError(
                code: .invalidValue, message: "unknown operationType '\(type)'",
                codingPath: decoder.codingPath + [CodingKeys.operationType])
        }
    }

    /// Encodes the operation.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .create(let subscription):
            try container.encode("create", forKey: .operationType)
            try container.encode(subscription, forKey: .subscription)
        case .update(let subscription):
            try container.encode("update", forKey: .operationType)
            try container.encode(subscription, forKey: .subscription)
        case .delete(let subscriptionID):
            try container.encode("delete", forKey: .operationType)
            var ids = container.nestedContainer(keyedBy: IDKeys.self, forKey: .subscription)
            try ids.encode(subscriptionID, forKey: .subscriptionID)
        }
    }
}
