/// A person a share is shared with: the Share Participant dictionary.
///
/// ```swift
/// let invitee = ShareParticipant(
///     userIdentity: UserIdentity(lookupInfo: UserLookupInfo(emailAddress: "a@example.com")),
///     permission: .readWrite, type: .user, acceptanceStatus: .invited)
/// ```
///
/// CloudKit reference: Types ("Share Participant Dictionary"); Apple's CloudKit Web Services Reference: “Sharing dictionaries”.
public struct ShareParticipant: Hashable, Sendable, Codable {
    /// Who the participant is.
    public var userIdentity: UserIdentity?
    /// What the participant may do.
    public var permission: SharePermission?
    /// The participant's role.
    public var type: ParticipantType?
    /// Whether the participant has accepted.
    public var acceptanceStatus: ParticipantAcceptanceStatus?
    /// The participant's ID (live shares).
    public var participantId: String?
    /// Key version for encrypted shares (live shares; opaque).
    public var publicKeyVersion: JSONValue?
    /// Protection info for encrypted shares (live shares; opaque).
    public var protectionInfo: JSONValue?

    /// Creates a participant.
    ///
    /// - Parameters:
    ///   - userIdentity: Who the participant is.
    ///   - permission: What the participant may do.
    ///   - type: The participant's role.
    ///   - acceptanceStatus: Whether the participant has accepted.
    ///   - participantId: The participant's ID.
    ///   - publicKeyVersion: Key version (opaque).
    ///   - protectionInfo: Protection info (opaque).
    public init(
        userIdentity: UserIdentity? = nil, permission: SharePermission? = nil, type: ParticipantType? = nil,
        acceptanceStatus: ParticipantAcceptanceStatus? = nil, participantId: String? = nil,
        publicKeyVersion: JSONValue? = nil, protectionInfo: JSONValue? = nil
    ) {
        self.userIdentity = userIdentity
        self.permission = permission
        self.type = type
        self.acceptanceStatus = acceptanceStatus
        self.participantId = participantId
        self.publicKeyVersion = publicKeyVersion
        self.protectionInfo = protectionInfo
    }
}
