/// Which APNs / web courier service a token belongs to: `development` or `production` (an open set).
///
/// CloudKit reference: Creating APNs Tokens (tokens/create); Apple's CloudKit Web Services Reference: “tokens/create”.
public struct APNsEnvironment: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The wire string.
    public var rawValue: String

    /// Creates an environment from its wire string.
    ///
    /// - Parameter rawValue: The wire string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The wire string.
    public var description: String { rawValue }

    /// `development`: the sandbox courier.
    public static let development = APNsEnvironment(rawValue: "development")
    /// `production`: the production courier.
    public static let production = APNsEnvironment(rawValue: "production")
}
