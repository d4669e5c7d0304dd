import StratusWire

/// Who may read, create and change records of one type in the public database.
///
/// CloudKit's security roles: `world` (anyone, with an API token alone), `authenticated`
/// (any signed-in user) and `creator` (the user who created the record). Set per record type
/// in the schema; a type without roles has CloudKit's defaults. Server-to-server keys act for
/// the developer and are not limited.
///
/// ```json
/// {"recordTypes": {"Post": {"fields": {}, "roles": {
///     "world": {"read": true}, "authenticated": {"read": true, "create": true}, "creator": {"read": true, "write": true}}}}}
/// ```
public struct SecurityRoles: Hashable, Sendable, Codable {
    /// What one role may do.
    public struct Permissions: Hashable, Sendable, Codable {
        /// Read records (`records/lookup`, `records/query`).
        public var read: Bool
        /// Create records.
        public var create: Bool
        /// Change and delete existing records.
        public var write: Bool

        /// Creates permissions; everything off by default.
        public init(read: Bool = false, create: Bool = false, write: Bool = false) {
            self.read = read
            self.create = create
            self.write = write
        }

        /// Decodes permissions; missing keys are `false`.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            read = try container.decodeIfPresent(Bool.self, forKey: .read) ?? false
            create = try container.decodeIfPresent(Bool.self, forKey: .create) ?? false
            write = try container.decodeIfPresent(Bool.self, forKey: .write) ?? false
        }
    }

    /// Anyone, signed in or not.
    public var world: Permissions
    /// Any signed-in user.
    public var authenticated: Permissions
    /// The record's creator.
    public var creator: Permissions

    /// Creates roles.
    public init(world: Permissions, authenticated: Permissions, creator: Permissions) {
        self.world = world
        self.authenticated = authenticated
        self.creator = creator
    }

    /// CloudKit's defaults: everyone reads, signed-in users create, creators change their records.
    public static let `default` = SecurityRoles(
        world: Permissions(read: true), authenticated: Permissions(read: true, create: true), creator: Permissions(read: true, write: true)
    )

    /// Whether `caller` (`nil` for an anonymous caller) may read `record`.
    func mayRead(_ record: StoredRecord, caller: String?) -> Bool {
        readScope(caller: caller).includes(record)
    }

    /// Which records of the type `caller` (`nil` for an anonymous caller) may read.
    func readScope(caller: String?) -> ReadScope {
        if world.read { return .all }
        guard let caller else { return .none }
        if authenticated.read { return .all }
        return creator.read ? .createdBy(caller) : .none
    }

    /// Whether a signed-in user may create records.
    var mayCreate: Bool { world.create || authenticated.create }

    /// Whether `caller` may change or delete `record`.
    func mayWrite(_ record: StoredRecord, caller: String) -> Bool {
        world.write || authenticated.write || (creator.write && record.created.userRecordName == caller)
    }
}

/// Which public records a request may read, by the roles of their types.
struct ReadPolicy: Sendable {
    /// Roles of the types that have them; empty when nothing is limited.
    private let roles: [String: SecurityRoles]
    /// The reader; `nil` for an anonymous caller.
    private let caller: String?

    /// The policy of a request: limits only non-privileged callers of the public database.
    init(schema: Schema, context: DatabaseRequest) {
        guard context.database.scope == .public, !context.principal.isPrivileged else {
            roles = [:]
            caller = nil
            return
        }
        roles = schema.recordTypes.compactMapValues(\.roles)
        caller = context.principal.userRecordName
    }

    /// Whether no record is ever hidden.
    var isOpen: Bool { roles.isEmpty }

    /// Whether the caller may read `record`.
    func allows(_ record: StoredRecord) -> Bool {
        guard let roles = roles[record.recordType] else { return true }
        return roles.mayRead(record, caller: caller)
    }

    /// Which records of `recordType` the caller may read: what a query adds to its plan.
    func scope(of recordType: String) -> ReadScope {
        roles[recordType]?.readScope(caller: caller) ?? .all
    }
}

/// Which records of one type a caller may read.
enum ReadScope: Hashable, Sendable {
    /// Every record.
    case all
    /// Only the records this user created.
    case createdBy(String)
    /// None.
    case none

    /// Whether `record` is in the scope.
    func includes(_ record: StoredRecord) -> Bool {
        switch self {
        case .all: true
        case .createdBy(let user): record.created.userRecordName == user
        case .none: false
        }
    }

    /// The scope as text for a continuation marker's query fingerprint (a marker serves one reader's view).
    var fingerprint: String {
        switch self {
        case .all: "all"
        case .createdBy(let user): "createdBy:" + user
        case .none: "none"
        }
    }
}
