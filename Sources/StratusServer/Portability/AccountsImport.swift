import Foundation
import StratusWire

/// Loads the account files of an export, in one accounts transaction.
///
/// Accounts are server-wide, so the target may hold some already (another container was
/// imported first): an account with the same user record name *and* e-mail address is kept as
/// the target has it; one that shares only one of the two is a conflict, and nothing is imported.
/// API tokens and keys are matched by their hash and ID the same way.
enum AccountsImport {
    struct Loaded: Sendable {
        var usersAdded = 0
        var usersKept = 0
        var credentialsAdded = 0
    }

    static func load(_ export: ExportDirectory, into tx: any AccountStoreWriter) throws -> Loaded {
        var loaded = Loaded()
        let container = export.manifest.container
        let users = try export.reader(ExportFormat.usersFile)
        while let user = try users.next(Exported.User.self) {
            if try add(try account(user, at: users), tx) { loaded.usersAdded += 1 } else { loaded.usersKept += 1 }
        }
        try users.finish()
        let tokens = try export.reader(ExportFormat.apiTokensFile)
        while let token = try tokens.next(Exported.APIToken.self) {
            guard ExportFormat.isHex(token.tokenHash, digits: 64), token.prefix.utf8.count <= 16, token.name.utf8.count <= 1024 else {
                throw ExportError("\(tokens.entry.name) line \(tokens.lineNumber): an API token needs a 64-hex-digit hash, a short prefix and name")
            }
            let record = APITokenRecord(
                tokenHash: token.tokenHash, prefix: token.prefix, container: container, environment: token.environment, name: token.name,
                signInCallbackURL: token.signInCallbackURL, allowedOrigins: token.allowedOrigins, createdAt: token.createdAt,
                revokedAt: token.revokedAt)
            if let existing = try tx.apiToken(hash: token.tokenHash) {
                guard existing == record else {
                    throw ExportError("an API token with the hash \(token.tokenHash.prefix(12))… already exists here, for something else")
                }
                continue
            }
            try tx.insertAPIToken(record)
            loaded.credentialsAdded += 1
        }
        try tokens.finish()
        let keys = try export.reader(ExportFormat.serverKeysFile)
        while let key = try keys.next(Exported.ServerKey.self) {
            guard ExportFormat.isHex(key.keyID, digits: 64), key.publicKeyPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"), key.publicKeyPEM.utf8.count <= 4096
            else {
                throw ExportError("\(keys.entry.name) line \(keys.lineNumber): a server-to-server key needs a 64-hex-digit ID and a PEM public key")
            }
            let record = ServerKeyRecord(
                keyID: key.keyID, container: container, environment: key.environment, name: key.name, publicKeyPEM: key.publicKeyPEM,
                createdAt: key.createdAt, revokedAt: key.revokedAt)
            if let existing = try tx.serverKey(id: key.keyID) {
                guard existing == record else {
                    throw ExportError("a server-to-server key with the ID \(key.keyID.prefix(12))… already exists here, for something else")
                }
                continue
            }
            try tx.insertServerKey(record)
            loaded.credentialsAdded += 1
        }
        try keys.finish()
        return loaded
    }

    /// The account a line describes, checked.
    private static func account(_ user: Exported.User, at reader: ExportFileReader) throws -> UserAccount {
        let place = "\(reader.entry.name) line \(reader.lineNumber)"
        guard ImportRules.isUserRecordName(user.userRecordName) else {
            throw ExportError("\(place): '\(user.userRecordName.prefix(80))' is not a user record name ('_' and 32 hex digits)")
        }
        guard let email = try? Authenticator.normalizedEmail(user.emailAddress), email == user.emailAddress else {
            throw ExportError("\(place): '\(user.emailAddress.prefix(80))' is not a normalized e-mail address")
        }
        if let hash = user.passwordHash, !(hash.hasPrefix("$argon2id$") && hash.utf8.count <= 512) {
            throw ExportError("\(place): the password hash of \(email) is not an Argon2id PHC string")
        }
        return UserAccount(
            userRecordName: user.userRecordName, emailAddress: email, nameComponents: user.nameComponents, isDiscoverable: user.isDiscoverable,
            passwordHash: user.passwordHash, createdAt: user.createdAt, emailVerifiedAt: user.emailVerifiedAt, disabledAt: user.disabledAt)
    }

    /// Inserts the account; `false` when the same account (record name and e-mail) is already here.
    private static func add(_ account: UserAccount, _ tx: any AccountStoreWriter) throws -> Bool {
        let byName = try tx.user(recordName: account.userRecordName)
        let byEmail = try tx.user(emailAddress: account.emailAddress)
        if let byName, byName.emailAddress == account.emailAddress { return false }
        guard byName == nil, byEmail == nil else {
            throw ExportError(
                "the account \(account.userRecordName) <\(account.emailAddress)> conflicts with an account here that has the same user record name or e-mail address but not both; nothing was imported"
            )
        }
        guard try tx.insertUser(account) else { throw ExportError("the account \(account.emailAddress) could not be added") }
        return true
    }
}
