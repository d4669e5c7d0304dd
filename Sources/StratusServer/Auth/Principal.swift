/// Who makes a request, as authentication established it.
enum Principal: Sendable, Hashable {
    /// Open mode: every request is this user.
    case openMode(userRecordName: String)
    /// An API token alone: anonymous, public database reads only.
    case anonymous(apiToken: String)
    /// A signed-in user: an API token and a web auth token.
    case user(userRecordName: String, sessionID: String, apiToken: String)
    /// A server-to-server key: the public database only, writing as the key's own identity.
    case serverKey(keyID: String, userRecordName: String)

    /// The user record name that reads and writes, if any.
    var userRecordName: String? {
        switch self {
        case .openMode(let name), .user(let name, _, _), .serverKey(_, let name): name
        case .anonymous: nil
        }
    }

    /// The stand-in author name of an anonymous caller; anonymous callers never write.
    static let anonymousRecordName = "_world"

    /// Whether the caller may change public records created by others (server-to-server keys act for the developer).
    var isPrivileged: Bool {
        if case .serverKey = self { return true }
        return false
    }
}
