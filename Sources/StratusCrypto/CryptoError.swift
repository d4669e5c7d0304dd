/// An error thrown by ``StratusCrypto``: a key, PEM block or hash that could not be used.
///
/// The ``code`` says what kind of failure it was and stays open to new codes;
/// ``message`` names the problem; ``openSSLErrors`` holds the text OpenSSL
/// left in its error queue, if any, for logs (never for HTTP responses).
///
/// ```swift
/// import StratusCrypto
///
/// func publicKey(fromPasted pastedText: String) -> P256PublicKey? {
///     do {
///         return try P256PublicKey(pemRepresentation: pastedText)
///     } catch let error as CryptoError where error.code == .invalidPEM {
///         print("not a PEM public key: \(error.message)")
///     } catch {
///         print("unusable key: \(error)")
///     }
///     return nil
/// }
/// ```
public struct CryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure, an open set of string constants.
    ///
    /// New codes may be added without breaking callers; match on the
    /// constants you care about and treat the rest as generic failures.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's stable identifier, such as `"invalidPEM"`.
        public let rawValue: String

        /// Creates a code from its identifier.
        ///
        /// - Parameter rawValue: The identifier, such as `"invalidPEM"`.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The key material is readable but unusable: wrong algorithm, wrong curve or missing parts.
        public static let invalidKey = Code(rawValue: "invalidKey")
        /// The text is not a PEM block of the expected kind, or its contents don't decode.
        public static let invalidPEM = Code(rawValue: "invalidPEM")
        /// OpenSSL could not produce a signature.
        public static let signingFailed = Code(rawValue: "signingFailed")
        /// A hash could not be computed, for example Argon2 could not allocate its memory.
        public static let hashingFailed = Code(rawValue: "hashingFailed")
        /// The stored password hash is not a string that libsodium recognises.
        public static let invalidPasswordHash = Code(rawValue: "invalidPasswordHash")
        /// The system's secure random generator failed.
        public static let randomFailed = Code(rawValue: "randomFailed")
        /// Key generation failed inside OpenSSL.
        public static let keyGenerationFailed = Code(rawValue: "keyGenerationFailed")
        /// A crypto library could not be initialised.
        public static let initializationFailed = Code(rawValue: "initializationFailed")
        /// A sealed box did not authenticate: it was altered, truncated, or sealed under another key.
        public static let authenticationFailed = Code(rawValue: "authenticationFailed")

        /// The raw identifier.
        public var description: String { rawValue }

        /// Matches an error against a code, so a `catch` or `switch` can test for it.
        ///
        /// ```swift
        /// import StratusCrypto
        ///
        /// func isNotPEM(_ text: String) -> Bool {
        ///     do {
        ///         _ = try P256PublicKey(pemRepresentation: text)
        ///         return false
        ///     } catch CryptoError.Code.invalidPEM {
        ///         return true
        ///     } catch {
        ///         return false
        ///     }
        /// }
        /// ```
        ///
        /// - Parameters:
        ///   - code: The code to look for.
        ///   - error: Any error.
        /// - Returns: `true` if `error` is a ``CryptoError`` with that code.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? CryptoError)?.code == code
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence that names the problem, such as `"PEM text holds no PUBLIC KEY block"`.
    public var message: String
    /// The OpenSSL error queue at the time of failure, oldest first; empty when OpenSSL was not involved.
    public var openSSLErrors: [String]

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: A sentence that names the problem.
    ///   - openSSLErrors: Lines from OpenSSL's error queue, if any.
    public init(code: Code, message: String, openSSLErrors: [String] = []) {
        self.code = code
        self.message = message
        self.openSSLErrors = openSSLErrors
    }

    /// The code, the message and, when present, the OpenSSL error text.
    public var description: String {
        var text = "CryptoError(\(code)): \(message)"
        if !openSSLErrors.isEmpty {
            text += " [OpenSSL: \(openSSLErrors.joined(separator: "; "))]"
        }
        return text
    }
}
