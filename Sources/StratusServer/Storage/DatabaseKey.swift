public import StratusWire

/// One CloudKit database: a container's environment, a scope, and whose it is.
///
/// The private database of each user is its own `DatabaseKey` (owner = the
/// user's record name); the public database of an environment has the owner
/// ``DatabaseKey/publicOwner``. Every stored row leads with these four values,
/// so the data can be partitioned by owner.
public struct DatabaseKey: Hashable, Sendable, CustomStringConvertible {
    /// The container identifier, such as `iCloud.com.example.Notes`.
    public var container: String
    /// `development` or `production`.
    public var environment: Environment
    /// `public`, `private` or `shared`.
    public var scope: DatabaseScope
    /// The owner's user record name, or ``publicOwner``.
    public var owner: String

    /// The owner of every public database.
    public static let publicOwner = "_public"

    /// Creates a key.
    public init(container: String, environment: Environment, scope: DatabaseScope, owner: String) {
        self.container = container
        self.environment = environment
        self.scope = scope
        self.owner = owner
    }

    /// `iCloud.com.example.Notes/development/private/_abc…`.
    public var description: String { "\(container)/\(environment.rawValue)/\(scope.rawValue)/\(owner)" }
}
