/// How to find a user: the User Identity Lookup Info dictionary (set one key).
///
/// Also the item shape of `users/lookup/email` and `users/lookup/id` requests.
///
/// CloudKit reference: Types ("User Identity Lookup Info Dictionary"); Apple's CloudKit Web Services Reference: “User dictionaries”.
public struct UserLookupInfo: Hashable, Sendable, Codable {
    /// The user's email address.
    public var emailAddress: String?
    /// The user's phone number.
    public var phoneNumber: String?
    /// The user's record name.
    public var userRecordName: String?

    /// Creates lookup info; set exactly one key.
    ///
    /// - Parameters:
    ///   - emailAddress: The user's email address.
    ///   - phoneNumber: The user's phone number.
    ///   - userRecordName: The user's record name.
    public init(emailAddress: String? = nil, phoneNumber: String? = nil, userRecordName: String? = nil) {
        self.emailAddress = emailAddress
        self.phoneNumber = phoneNumber
        self.userRecordName = userRecordName
    }
}
