public import StratusServer
import StratusCrypto
import StratusServerCrypto

/// Adds, lists and removes console administrators (`stratus admin create|list|remove`).
///
/// ```swift
/// let admins = ConsoleAdministration(store: store)
/// let ada = try await admins.create(email: "ada@example.com", password: "correct horse battery")
/// ```
public struct ConsoleAdministration: Sendable {
    let store: any ConsoleStore
    let configuration: ConsoleConfiguration
    let hasher: PasswordHasher

    /// Creates the administration over a console store.
    ///
    /// - Parameters:
    ///   - store: Where administrators live.
    ///   - configuration: Password rules and the clock.
    public init(store: any ConsoleStore, configuration: ConsoleConfiguration = ConsoleConfiguration()) {
        self.store = store
        self.configuration = configuration
        self.hasher = PasswordHasher(configuration: configuration.passwordHashing)
    }

    /// Creates an administrator with an Argon2id-hashed password.
    ///
    /// - Parameters:
    ///   - email: The sign-in address; stored lowercased, unique among administrators.
    ///   - password: At least ``ConsoleConfiguration/minimumPasswordLength`` characters.
    /// - Returns: The new administrator.
    /// - Throws: ``AccountError`` for a bad address, a short password or a taken address.
    public func create(email: String, password: String) async throws -> ConsoleAdministrator {
        let address = try AccountAdministration.normalizedEmailAddress(email)
        guard password.count >= configuration.minimumPasswordLength else {
            throw AccountError(.passwordTooShort, "an administrator's password needs at least \(configuration.minimumPasswordLength) characters")
        }
        let administrator = ConsoleAdministrator(
            id: try SecureRandom.hexToken(byteCount: 16), emailAddress: address, passwordHash: try await hasher.hash(password),
            createdAt: configuration.now()
        )
        guard try await store.writeConsole({ try $0.insertAdministrator(administrator) }) else {
            throw AccountError(.emailAddressTaken, "an administrator with the address \(address) exists already")
        }
        return administrator
    }

    /// Every administrator, by e-mail address.
    public func list() async throws -> [ConsoleAdministrator] {
        try await store.readConsole { try $0.administrators() }
    }

    /// Removes an administrator, named by address or ID; their sessions end at once.
    ///
    /// - Returns: The removed administrator.
    /// - Throws: ``AccountError`` ``AccountError/Code/notFound``.
    public func remove(_ emailOrID: String) async throws -> ConsoleAdministrator {
        let address = try? AccountAdministration.normalizedEmailAddress(emailOrID)
        let removed = try await store.writeConsole { tx -> ConsoleAdministrator? in
            guard let found = try address.flatMap({ try tx.administrator(emailAddress: $0) }) ?? tx.administrator(id: emailOrID) else {
                return nil
            }
            return try tx.deleteAdministrator(id: found.id) ? found : nil
        }
        guard let removed else { throw AccountError(.notFound, "no administrator has the address or ID '\(emailOrID)'") }
        return removed
    }
}
