/// `tokens/create` (under `/device/1/…`): mint an APNs token and its web courier URL.
///
/// CloudKit reference: Creating APNs Tokens (tokens/create); Apple's CloudKit Web Services Reference: “tokens/create”.
public enum TokensCreate: WireEndpoint {
    /// `tokens/create`.
    public static let operation = EndpointOperation.tokensCreate

    /// The `tokens/create` request body.
    public struct Request: Hashable, Sendable, Codable {
        /// Which courier to use.
        public var apnsEnvironment: APNsEnvironment
        /// A per-session UUID CloudKit JS sends (optional).
        public var clientId: String?

        /// Creates a request.
        ///
        /// - Parameters:
        ///   - apnsEnvironment: Which courier to use.
        ///   - clientId: A per-session UUID.
        public init(apnsEnvironment: APNsEnvironment, clientId: String? = nil) {
            self.apnsEnvironment = apnsEnvironment
            self.clientId = clientId
        }
    }

    /// The `tokens/create` response body.
    public struct Response: Hashable, Sendable, Codable {
        /// The courier environment.
        public var apnsEnvironment: APNsEnvironment
        /// The opaque token to register.
        public var apnsToken: String
        /// The long-poll URL (`…/aps?tok=<token>&ttl=43200`).
        public var webcourierURL: String

        /// Creates a response.
        ///
        /// - Parameters:
        ///   - apnsEnvironment: The courier environment.
        ///   - apnsToken: The opaque token.
        ///   - webcourierURL: The long-poll URL.
        public init(apnsEnvironment: APNsEnvironment, apnsToken: String, webcourierURL: String) {
            self.apnsEnvironment = apnsEnvironment
            self.apnsToken = apnsToken
            self.webcourierURL = webcourierURL
        }
    }
}

/// `tokens/register` (under `/device/1/…`): bind a token to the signed-in user.
///
/// CloudKit reference: Registering Tokens (tokens/register); Apple's CloudKit Web Services Reference: “tokens/register”.
public enum TokensRegister: WireEndpoint {
    /// `tokens/register`.
    public static let operation = EndpointOperation.tokensRegister

    /// The `tokens/register` request body; both `apnsEnvironment` and `apnsToken` are required.
    public struct Request: Hashable, Sendable, Codable {
        /// The courier environment.
        public var apnsEnvironment: APNsEnvironment
        /// The token from `tokens/create`.
        public var apnsToken: String
        /// A per-session UUID CloudKit JS sends (optional).
        public var clientId: String?

        /// Creates a request.
        ///
        /// - Parameters:
        ///   - apnsEnvironment: The courier environment.
        ///   - apnsToken: The token from `tokens/create`.
        ///   - clientId: A per-session UUID.
        public init(apnsEnvironment: APNsEnvironment, apnsToken: String, clientId: String? = nil) {
            self.apnsEnvironment = apnsEnvironment
            self.apnsToken = apnsToken
            self.clientId = clientId
        }
    }

    /// No meaningful body; Stratus answers `{}`.
    public typealias Response = EmptyBody
}
