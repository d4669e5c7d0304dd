public import Foundation

/// Comparisons whose running time doesn't depend on where the inputs differ.
///
/// Use these to check secrets a client presents (API tokens, web-auth tokens,
/// HMAC tags) against stored values, so an attacker can't learn a token byte
/// by byte from response times.
///
/// ```swift
/// import StratusCrypto
///
/// func isAuthorized(presentedToken: String, storedToken: String) -> Bool {
///     ConstantTime.isEqual(presentedToken, storedToken)  // takes as long whatever the first difference
/// }
/// ```
///
/// Inputs of different lengths compare unequal immediately: the length is not
/// treated as secret (all Stratus tokens have a fixed, public length).
public enum ConstantTime {
    /// Compares two byte strings in constant time.
    ///
    /// - Parameters:
    ///   - lhs: Some bytes.
    ///   - rhs: Other bytes.
    /// - Returns: `true` if both have the same length and the same bytes.
    public static func isEqual(_ lhs: Data, _ rhs: Data) -> Bool {
        ConstantTimeBackend.isEqual(lhs, rhs)
    }

    /// Compares the UTF-8 bytes of two strings in constant time.
    ///
    /// - Parameters:
    ///   - lhs: A string, such as the token a client sent.
    ///   - rhs: Another string, such as the stored token.
    /// - Returns: `true` if the UTF-8 encodings are identical.
    public static func isEqual(_ lhs: String, _ rhs: String) -> Bool {
        isEqual(Data(lhs.utf8), Data(rhs.utf8))
    }
}
