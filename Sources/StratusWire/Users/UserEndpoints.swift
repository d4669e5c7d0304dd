/// `users/caller` (GET, public): the signed-in user's identity.
///
/// CloudKit reference: Fetching Current User Identity (users/caller); Apple's CloudKit Web Services Reference: “GET …/public/users/caller”.
public enum UsersCaller: WireEndpoint {
    /// `users/caller`.
    public static let operation = EndpointOperation.usersCaller
    /// No body (GET).
    public typealias Request = EmptyBody

    /// The identity, as flat keys **and** a one-element `users` array, so both client styles parse it.
    public struct Response: Hashable, Sendable, Codable {
        /// The user's record name (flat form).
        public var userRecordName: String?
        /// The user's name (flat form).
        public var nameComponents: NameComponents?
        /// How the user was looked up (flat form).
        public var lookupInfo: UserLookupInfo?
        /// The identity in Apple's documented `{"users":[…]}` form.
        public var users: [UserIdentity]?

        /// Creates a response carrying `identity` in both forms.
        ///
        /// - Parameter identity: The caller's identity.
        public init(identity: UserIdentity) {
            self.userRecordName = identity.userRecordName
            self.nameComponents = identity.nameComponents
            self.lookupInfo = identity.lookupInfo
            self.users = [identity]
        }

        /// The identity: the first of `users` if present, else the flat keys.
        public var identity: UserIdentity {
            users?.first ?? UserIdentity(userRecordName: userRecordName, nameComponents: nameComponents, lookupInfo: lookupInfo)
        }
    }
}

/// `users/current` (GET, public, deprecated): the signed-in user as a User dictionary.
///
/// CloudKit reference: Fetching Current User (users/current); Apple's CloudKit Web Services Reference: “GET …/public/users/current”.
public enum UsersCurrent: WireEndpoint {
    /// `users/current`.
    public static let operation = EndpointOperation.usersCurrent
    /// No body (GET).
    public typealias Request = EmptyBody
    /// `{"userRecordName", "firstName", "lastName"}`.
    public typealias Response = User
}

/// `users/discover` (public): discoverable users by email, phone or record name (POST), or all
/// discoverable contacts (GET, with an empty request).
///
/// CloudKit reference: Discovering User Identities (users/discover); Apple's CloudKit Web Services Reference: “POST …/public/users/discover”, “GET …/public/users/discover”.
public enum UsersDiscover: WireEndpoint {
    /// `users/discover`.
    public static let operation = EndpointOperation.usersDiscover

    /// The POST body; `lookupInfos` is absent on the GET variant.
    public struct Request: Hashable, Sendable, Codable {
        /// Whom to look up.
        public var lookupInfos: [UserLookupInfo]?

        /// Creates a request.
        ///
        /// - Parameter lookupInfos: Whom to look up; `nil` for the GET variant.
        public init(lookupInfos: [UserLookupInfo]? = nil) {
            self.lookupInfos = lookupInfos
        }
    }

    /// `{"users": [User identity]}`.
    public struct Response: Hashable, Sendable, Codable {
        /// The discovered identities.
        public var users: [UserIdentity]

        /// Creates a response.
        ///
        /// - Parameter users: The discovered identities.
        public init(users: [UserIdentity]) {
            self.users = users
        }
    }
}

/// `users/lookup/email` (public, deprecated): users by email address.
///
/// CloudKit reference: Looking Up Users by Email (users/lookup/email); Apple's CloudKit Web Services Reference: “Legacy lookups”.
public enum UsersLookupEmail: WireEndpoint {
    /// `users/lookup/email`.
    public static let operation = EndpointOperation.usersLookupEmail
    /// `{"users": [{"emailAddress": …}]}`.
    public typealias Request = UsersLookupRequest
    /// `{"users": [User incl. emailAddress]}`.
    public typealias Response = UsersResponse
}

/// `users/lookup/id` (public, deprecated): users by record name.
///
/// CloudKit reference: Looking Up Users by ID (users/lookup/id); Apple's CloudKit Web Services Reference: “Legacy lookups”.
public enum UsersLookupID: WireEndpoint {
    /// `users/lookup/id`.
    public static let operation = EndpointOperation.usersLookupID
    /// `{"users": [{"userRecordName": …}]}`.
    public typealias Request = UsersLookupRequest
    /// `{"users": [User]}`.
    public typealias Response = UsersResponse
}

/// `users/lookup/contacts` (public, deprecated): users among the caller's contacts; no request keys.
///
/// CloudKit reference: Looking Up Contacts (users/lookup/contacts); Apple's CloudKit Web Services Reference: “Legacy lookups”.
public enum UsersLookupContacts: WireEndpoint {
    /// `users/lookup/contacts`.
    public static let operation = EndpointOperation.usersLookupContacts
    /// No documented keys.
    public typealias Request = EmptyBody
    /// `{"users": [User]}`.
    public typealias Response = UsersResponse
}

/// The request body of `users/lookup/email` and `users/lookup/id`: `{"users": [lookup info]}`.
public struct UsersLookupRequest: Hashable, Sendable, Codable {
    /// Whom to look up (`emailAddress` or `userRecordName` set).
    public var users: [UserLookupInfo]

    /// Creates a request.
    ///
    /// - Parameter users: Whom to look up.
    public init(users: [UserLookupInfo]) {
        self.users = users
    }
}

/// The response body of the legacy user lookups: `{"users": [User]}`.
public struct UsersResponse: Hashable, Sendable, Codable {
    /// The users found.
    public var users: [User]

    /// Creates a response.
    ///
    /// - Parameter users: The users found.
    public init(users: [User]) {
        self.users = users
    }
}
