extension AccountAdministration {
    /// The e-mail address rule of app accounts, for the console's administrators too: trimmed,
    /// lowercased, one `@`, a dot in the domain, at most 254 bytes.
    ///
    /// ```swift
    /// let email = try AccountAdministration.normalizedEmailAddress(" Ada@Example.com ")  // "ada@example.com"
    /// ```
    ///
    /// - Parameter text: The address as typed.
    /// - Returns: The normalized address.
    /// - Throws: ``AccountError`` ``AccountError/Code/invalidEmailAddress``.
    public static func normalizedEmailAddress(_ text: String) throws(AccountError) -> String {
        try Authenticator.normalizedEmail(text)
    }

    /// The SHA-256 (hex) of a bearer secret, as the account and console stores keep tokens.
    ///
    /// - Parameter token: The secret.
    /// - Returns: 64 lowercase hex characters.
    public static func tokenHash(_ token: String) -> String {
        Authenticator.hash(token)
    }
}
