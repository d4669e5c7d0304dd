import StratusHTTP
import StratusWire

/// `users/caller`, `users/current`, `users/discover` and `users/lookup/email|id|contacts`.
struct UserEndpoints: EndpointGroup {
    /// Users; `nil` in open mode (then the caller alone is known, by record name).
    let accounts: (any AccountStore)?
    let limits: ServiceLimits

    func register(on operations: inout DatabaseOperations) {
        operations.on(.usersCaller, .usersCurrent, .usersDiscover, .usersLookupEmail, .usersLookupID, .usersLookupContacts) {
            try await users($0)
        }
    }

    /// `users/caller`, `users/current`, `users/discover`, `users/lookup/email|id|contacts` (Apple's CloudKit Web Services Reference: “Users”).
    ///
    /// Only discoverable users are found by others, and only they reveal names;
    /// the caller always sees its own. Unknown and undiscoverable users are simply
    /// absent from the results, so a lookup cannot tell them apart.
    func users(_ context: DatabaseRequest) async throws -> HTTPResponse {
        let scope = context.database.scope
        guard scope == .public || (scope == .private && context.operation == .usersCaller) else {
            throw ServiceError.badRequest("endpoint not applicable in the database type '\(scope == .private ? "privatedb" : "sharedb")'")
        }
        let caller = context.caller
        switch context.operation {
        case .usersCaller:
            let me = try await accounts?.readAccounts { try $0.user(recordName: caller) }
            let identity = UserIdentity(
                userRecordName: caller, nameComponents: me.flatMap { Self.names($0.nameComponents) },
                lookupInfo: me.map { UserLookupInfo(emailAddress: $0.emailAddress) }
            )
            return try context.encode(UsersCaller.Response(identity: identity), numbersAsStrings: nil)
        case .usersCurrent:
            let me = try await accounts?.readAccounts { try $0.user(recordName: caller) }
            let names = me.flatMap { $0.isDiscoverable ? $0.nameComponents : nil }
            return try context.encode(User(userRecordName: caller, firstName: names?.givenName, lastName: names?.familyName), numbersAsStrings: nil)
        case .usersDiscover:
            let infos = context.request.method == .get ? [] : try context.decode(UsersDiscover.Request.self).lookupInfos ?? []
            let found = try await discoverable(infos, in: accounts)
            let identities = found.map { info, user in
                UserIdentity(userRecordName: user.userRecordName, nameComponents: Self.names(user.nameComponents), lookupInfo: info)
            }
            return try context.encode(UsersDiscover.Response(users: identities), numbersAsStrings: nil)
        case .usersLookupEmail, .usersLookupID:
            let request = try context.decode(UsersLookupRequest.self)
            let byEmail = context.operation == .usersLookupEmail
            let infos = request.users.map { info in
                byEmail ? UserLookupInfo(emailAddress: info.emailAddress) : UserLookupInfo(userRecordName: info.userRecordName)
            }
            let users = try await discoverable(infos, in: accounts).map { _, user in
                User(
                    userRecordName: user.userRecordName, firstName: user.nameComponents.givenName, lastName: user.nameComponents.familyName,
                    emailAddress: byEmail ? user.emailAddress : nil
                )
            }
            return try context.encode(UsersResponse(users: users), numbersAsStrings: nil)
        default:
            return try context.encode(UsersResponse(users: []), numbersAsStrings: nil)
        }
    }

    /// The discoverable users matching each lookup info (by e-mail address or record name), in request order.
    private func discoverable(
        _ infos: [UserLookupInfo], in accounts: (any AccountStore)?
    ) async throws -> [(UserLookupInfo, UserAccount)] {
        let limit = limits.maximumResultsPerResponse
        guard infos.count <= limit else {
            throw ServiceError.badRequest("a lookup may name at most \(limit) users; this one names \(infos.count)")
        }
        guard let accounts, !infos.isEmpty else { return [] }
        return try await accounts.readAccounts { tx in
            try infos.compactMap { info -> (UserLookupInfo, UserAccount)? in
                let user: UserAccount?
                if let email = info.emailAddress {
                    user = try (try? Authenticator.normalizedEmail(email)).flatMap { try tx.user(emailAddress: $0) }
                } else if let name = info.userRecordName {
                    user = try tx.user(recordName: name)
                } else {
                    user = nil  // phone numbers are not collected by this server
                }
                // By e-mail, only a verified address: whoever typed it in first is not its owner.
                guard let user, user.isDiscoverable, info.emailAddress == nil || user.isEmailVerified else { return nil }
                return (info, user)
            }
        }
    }

    private static func names(_ components: NameComponents) -> NameComponents? {
        components == NameComponents() ? nil : components
    }
}
