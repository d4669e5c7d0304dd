import StratusCrypto
import StratusWire

/// What a `records/modify` needs to save shares: the accounts of the users it invites by
/// address, looked up before its transaction, and the makers of short GUIDs and participant IDs.
struct ShareInvitations: Sendable {
    /// Users and their addresses; `nil` in open mode (then nobody is found by address).
    let accounts: (any AccountStore)?
    /// A new participant ID.
    let makeParticipantID: @Sendable () -> String

    /// The sharing part of a `records/modify`, or `nil` when no operation involves sharing.
    func admission(for operations: [RecordOperation], context: DatabaseRequest) async throws -> ShareAdmission? {
        let participantWrites = context.database.scope == .private && context.caller != context.database.owner
        guard ShareAdmission.isNeeded(for: operations, participantWrites: participantWrites) else { return nil }
        let emails = ShareAdmission.invitedEmails(in: operations)
        var users: [String: String] = [:]
        if !emails.isEmpty, let accounts {
            users = try await accounts.readAccounts { reader in
                var found: [String: String] = [:]
                for email in emails {
                    // Only a discoverable user's record name may be learned from an address (as
                    // `users/lookup/email` would tell it), and only a verified address binds an
                    // invitation to an account (design note 0006, "Sign-up"); anyone else stays
                    // invited by address until they accept, so the share record never reveals who
                    // owns the address.
                    if let user = try reader.user(emailAddress: email), user.isDiscoverable, user.isEmailVerified {
                        found[email] = user.userRecordName
                    }
                }
                return found
            }
        }
        return ShareAdmission(
            owner: context.database.owner, caller: context.caller, scope: context.database.scope, usersByEmail: users,
            makeShortGUID: Self.makeShortGUID, makeParticipantID: makeParticipantID
        )
    }

    /// A new short GUID: 144 random bits, base64url.
    @Sendable static func makeShortGUID() throws -> String {
        try SecureRandom.base64URLToken(byteCount: 18)
    }
}
