/// A per-subscription failure: the Subscription Fetch Error dictionary.
///
/// CloudKit reference: Types ("Subscription Fetch Error Dictionary"); Apple's CloudKit Web Services Reference: “Error dictionaries”.
public struct SubscriptionFetchError: Error, Hashable, Sendable, Codable {
    /// The subscription the error is about.
    public var subscriptionID: String?
    /// A human-readable explanation.
    public var reason: String?
    /// What went wrong.
    public var serverErrorCode: ServerErrorCode
    /// Where to sign in (only with `AUTHENTICATION_REQUIRED`).
    public var redirectURL: String?

    /// Creates a subscription error.
    ///
    /// - Parameters:
    ///   - subscriptionID: The subscription the error is about.
    ///   - serverErrorCode: What went wrong.
    ///   - reason: A human-readable explanation.
    ///   - redirectURL: Where to sign in.
    public init(subscriptionID: String?, serverErrorCode: ServerErrorCode, reason: String? = nil, redirectURL: String? = nil) {
        self.subscriptionID = subscriptionID
        self.reason = reason
        self.serverErrorCode = serverErrorCode
        self.redirectURL = redirectURL
    }
}
