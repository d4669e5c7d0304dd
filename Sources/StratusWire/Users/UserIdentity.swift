/// A user as identity endpoints return it: the User Identity dictionary.
///
/// Only discoverable users expose ``nameComponents``.
///
/// CloudKit reference: Types ("User Identity Dictionary"); Apple's CloudKit Web Services Reference: “User dictionaries”.
public struct UserIdentity: Hashable, Sendable, Codable {
    /// The user's record name (`_` + 32 hex characters on Apple's service).
    public var userRecordName: String?
    /// The user's name, if discoverable.
    public var nameComponents: NameComponents?
    /// How the user was looked up.
    public var lookupInfo: UserLookupInfo?

    /// Creates a user identity.
    ///
    /// - Parameters:
    ///   - userRecordName: The user's record name.
    ///   - nameComponents: The user's name.
    ///   - lookupInfo: How the user was looked up.
    public init(userRecordName: String? = nil, nameComponents: NameComponents? = nil, lookupInfo: UserLookupInfo? = nil) {
        self.userRecordName = userRecordName
        self.nameComponents = nameComponents
        self.lookupInfo = lookupInfo
    }
}
