/// Why an account operation (sign-up, sign-in, token or key administration) was refused.
///
/// ```swift
/// do {
///     try await admin.createUser(email: "ada@example.com", password: "short")
/// } catch let error as AccountError where error.code == .passwordTooShort {
///     print(error.description)  // names the minimum length
/// }
/// ```
public struct AccountError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of refusal.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The name of the code.
        public var rawValue: String

        /// Creates a code.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The e-mail address is not one.
        public static let invalidEmailAddress = Code(rawValue: "invalidEmailAddress")
        /// Another account has this e-mail address.
        public static let emailAddressTaken = Code(rawValue: "emailAddressTaken")
        /// The password is shorter than the configured minimum.
        public static let passwordTooShort = Code(rawValue: "passwordTooShort")
        /// The e-mail address and password do not match an account (deliberately vague).
        public static let invalidCredentials = Code(rawValue: "invalidCredentials")
        /// Too many attempts; see ``AccountError/retryAfter``.
        public static let throttled = Code(rawValue: "throttled")
        /// No such user, token or key.
        public static let notFound = Code(rawValue: "notFound")
        /// A prefix matched more than one token.
        public static let ambiguous = Code(rawValue: "ambiguous")
        /// An argument is malformed (a URL, a PEM key, a name).
        public static let invalidArgument = Code(rawValue: "invalidArgument")
        /// An administrator disabled the account: it cannot sign in until it is enabled again.
        public static let accountDisabled = Code(rawValue: "accountDisabled")
        /// A verification link could not be handed to ``VerificationDelivery``.
        public static let deliveryFailed = Code(rawValue: "deliveryFailed")

        /// The raw value.
        public var description: String { rawValue }
    }

    /// What kind of refusal.
    public var code: Code
    /// What went wrong, naming the address, token or key.
    public var message: String
    /// With ``Code/throttled``: seconds until another attempt may succeed.
    public var retryAfter: Int?

    /// Creates an error.
    public init(_ code: Code, _ message: String, retryAfter: Int? = nil) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    /// The message.
    public var description: String { message }
}
