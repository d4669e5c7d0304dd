/// A user as the legacy endpoints return it: the User dictionary.
///
/// Returned by `users/current`, `users/lookup/email` (with ``emailAddress``), `users/lookup/id`
/// and `users/lookup/contacts`.
///
/// CloudKit reference: Types ("User Dictionary"); Apple's CloudKit Web Services Reference: “User dictionaries”.
public struct User: Hashable, Sendable, Codable {
    /// The user's record name.
    public var userRecordName: String?
    /// The first name, if discoverable.
    public var firstName: String?
    /// The last name, if discoverable.
    public var lastName: String?
    /// The email address (only from `users/lookup/email`).
    public var emailAddress: String?

    /// Creates a user dictionary.
    ///
    /// - Parameters:
    ///   - userRecordName: The user's record name.
    ///   - firstName: The first name.
    ///   - lastName: The last name.
    ///   - emailAddress: The email address.
    public init(userRecordName: String? = nil, firstName: String? = nil, lastName: String? = nil, emailAddress: String? = nil) {
        self.userRecordName = userRecordName
        self.firstName = firstName
        self.lastName = lastName
        self.emailAddress = emailAddress
    }
}
