import Foundation
import StratusLogging
import StratusServer
import StratusServerSQLite
import StratusWire

/// What `stratus user|token|key` share: the data directory, the store and the administration.
struct AdminSession {
    let store: any RecordStore & AccountStore
    let admin: AccountAdministration

    /// Opens the data directory named by `--data-dir`.
    static func open(_ options: Options) async throws -> AdminSession {
        let directory = try DataDirectory(options)
        let store = try await directory.openStore(logger: .disabled)
        let configuration = ServiceConfiguration(tokenSecret: try await directory.tokenSecret(for: store))
        return AdminSession(store: store, admin: AccountAdministration(accounts: store, configuration: configuration))
    }

    /// Runs `body`, then closes the store whatever happened.
    static func run(_ options: Options, _ body: (AdminSession) async throws -> Void) async throws {
        let session = try await open(options)
        do {
            try await body(session)
        } catch {
            try? await session.store.close()
            throw error
        }
        try await session.store.close()
    }

    /// Fails unless the container was created with `stratus container create`.
    func requireContainer(_ identifier: String) async throws {
        guard try await store.read({ try $0.containerExists(identifier) }) else {
            throw CLIError("container '\(identifier)' does not exist; create it with `stratus container create \(identifier)`")
        }
    }

    /// The `--environment` flag.
    static func environment(_ options: Options) throws -> Environment {
        let name = options.string("environment", default: "development")
        guard let environment = Environment(rawValue: name) else {
            throw CLIError("--environment must be development or production; got '\(name)'")
        }
        return environment
    }

    /// Refuses flags a command does not know.
    static func checkFlags(_ options: Options, known: Set<String>, usage: String) throws {
        let unknown = options.unknownFlags(known: known.union(["data-dir", "database", "help"]))
        guard unknown.isEmpty else {
            throw CLIError("unknown flag(s): \(unknown.map { "--" + $0 }.joined(separator: ", "))\n\n\(usage)")
        }
    }

    /// A millisecond timestamp as an ISO 8601 date.
    static func date(_ milliseconds: Int64?) -> String {
        guard let milliseconds else { return "-" }
        return ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000))
    }
}

/// `stratus user create|list|token|verify`.
enum UserCommand {
    static let usage = """
        stratus user create <email> [--password-stdin] [--given-name <name>] [--family-name <name>] [--discoverable]
        stratus user list
        stratus user token <email-or-user-record-name> <container> [--short]
        stratus user verify <email-or-user-record-name>

        create  makes an account and prints its user record name. The password is read from
                standard input with --password-stdin, or from STRATUS_PASSWORD; without one the
                account can only use tokens printed by `user token`. Its address counts as
                verified: share invitations sent to it reach the account.
        list    prints every account: user record name, e-mail, names, discoverable, and
                "unverified" for an address never verified (accounts from before verification).
        verify  marks such an account's address as verified, when you know its owner.
        token   opens a session and prints a ckWebAuthToken for scripts: valid two weeks
                (30 minutes with --short) in that container, until it is signed out.

        Every command takes --data-dir (default ./.stratus, or STRATUS_DATA_DIR).
        """

    static func run(_ options: Options) async throws {
        if options.flag("help") { return print(usage) }
        let action = options.positional.first
        try AdminSession.checkFlags(options, known: ["password-stdin", "password", "given-name", "family-name", "discoverable", "short"], usage: usage)
        try await AdminSession.run(options) { session in
            switch action {
            case "create":
                guard options.positional.count == 2 else { throw CLIError(usage) }
                let password = try readPassword(options)
                let names = NameComponents(
                    givenName: nonEmpty(options.string("given-name", default: "")), familyName: nonEmpty(options.string("family-name", default: "")))
                let user = try await session.admin.createUser(
                    email: options.positional[1], password: password, nameComponents: names, discoverable: options.flag("discoverable"))
                print(user.userRecordName)
                if password == nil {
                    FileHandle.standardError.write(Data("note: \(user.emailAddress) has no password; use `stratus user token` to sign it in\n".utf8))
                }
            case "list":
                guard options.positional.count == 1 else { throw CLIError(usage) }
                for user in try await session.admin.users() {
                    let name = [user.nameComponents.givenName, user.nameComponents.familyName].compactMap { $0 }.joined(separator: " ")
                    print(
                        [
                            user.userRecordName, user.emailAddress, name.isEmpty ? "-" : name, user.isDiscoverable ? "discoverable" : "private",
                        ].joined(separator: "\t") + (user.isEmailVerified ? "" : "\tunverified"))
                }
            case "verify":
                guard options.positional.count == 2 else { throw CLIError(usage) }
                let user = try await session.admin.markEmailVerified(options.positional[1])
                print("\(user.emailAddress) is verified")
            case "token":
                guard options.positional.count == 3 else { throw CLIError(usage) }
                try await session.requireContainer(options.positional[2])
                print(try await session.admin.webAuthToken(for: options.positional[1], container: options.positional[2], keepSignedIn: !options.flag("short")))
            default:
                throw CLIError(usage)
            }
        }
    }

    /// The password from standard input (`--password-stdin`) or `STRATUS_PASSWORD`, if any.
    static func readPassword(_ options: Options) throws -> String? {
        if options.flag("password-stdin") {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
            guard !text.isEmpty else { throw CLIError("--password-stdin read an empty password") }
            return text
        }
        let password = options.string("password", default: "")
        return password.isEmpty ? nil : password
    }

    private static func nonEmpty(_ text: String) -> String? {
        text.isEmpty ? nil : text
    }
}

/// `stratus token create|list|revoke`: API tokens.
enum TokenCommand {
    static let usage = """
        stratus token create <container> [--environment development|production] [--name <name>]
                             [--callback <sign-in callback URL>] [--origins <origin,origin>]
        stratus token list [<container>]
        stratus token revoke <token-or-prefix>

        create  prints a new API token (64 hex characters) for ?ckAPIToken=. Only its hash is
                stored: copy it now. --callback is where the sign-in page sends the browser
                with ?ckWebAuthToken=…; without it the page posts the token to its opener, but
                only to the --origins listed (never to any page that opened it). A token with
                neither cannot sign in from a browser (scripts still can, with Accept: JSON).
        list    prints prefix, container, environment, name, callback, created, revoked.
        revoke  stops a token at once; name it whole or by the 8-character prefix `list` shows.

        Every command takes --data-dir (default ./.stratus, or STRATUS_DATA_DIR).
        """

    static func run(_ options: Options) async throws {
        if options.flag("help") { return print(usage) }
        let action = options.positional.first
        try AdminSession.checkFlags(options, known: ["environment", "name", "callback", "origins"], usage: usage)
        try await AdminSession.run(options) { session in
            switch action {
            case "create":
                guard options.positional.count == 2 else { throw CLIError(usage) }
                let container = options.positional[1]
                try await session.requireContainer(container)
                let callback = options.string("callback", default: "")
                let origins = options.string("origins", default: "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                let (token, _) = try await session.admin.createAPIToken(
                    container: container, environment: try AdminSession.environment(options), name: options.string("name", default: "default"),
                    signInCallbackURL: callback.isEmpty ? nil : callback, allowedOrigins: origins.filter { !$0.isEmpty })
                print(token)
                if callback.isEmpty, origins.allSatisfy(\.isEmpty) {
                    FileHandle.standardError.write(
                        Data(
                            "note: this token has neither --callback nor --origins, so the sign-in page cannot hand web auth tokens to a browser app; create one with --callback <url> or --origins <origin> for that\n"
                                .utf8))
                }
            case "list":
                guard options.positional.count <= 2 else { throw CLIError(usage) }
                for token in try await session.admin.apiTokens(container: options.positional.count == 2 ? options.positional[1] : nil) {
                    print(
                        [
                            token.prefix + "…", token.container, token.environment.rawValue, token.name, token.signInCallbackURL ?? "-",
                            AdminSession.date(token.createdAt), token.revokedAt == nil ? "live" : "revoked " + AdminSession.date(token.revokedAt),
                        ].joined(separator: "\t"))
                }
            case "revoke":
                guard options.positional.count == 2 else { throw CLIError(usage) }
                let token = try await session.admin.revokeAPIToken(options.positional[1])
                print("revoked API token \(token.prefix)… (\(token.name)) of \(token.container)/\(token.environment.rawValue)")
            default:
                throw CLIError(usage)
            }
        }
    }
}

/// `stratus key add|list|revoke`: server-to-server keys.
enum KeyCommand {
    static let usage = """
        stratus key add <container> <public-key.pem> [--environment development|production] [--name <name>]
        stratus key list [<container>]
        stratus key revoke <key-id>

        add     registers a P-256 public key and prints its key ID. Make the key with
                  openssl ecparam -name prime256v1 -genkey -noout -out eckey.pem
                  openssl ec -in eckey.pem -pubout -out public.pem
                and sign requests with eckey.pem (X-Apple-CloudKit-Request-* headers).
                Signed requests reach the public database only.
        list    prints key ID, container, environment, name, created, revoked.
        revoke  stops a key at once.

        Every command takes --data-dir (default ./.stratus, or STRATUS_DATA_DIR).
        """

    static func run(_ options: Options) async throws {
        if options.flag("help") { return print(usage) }
        let action = options.positional.first
        try AdminSession.checkFlags(options, known: ["environment", "name"], usage: usage)
        try await AdminSession.run(options) { session in
            switch action {
            case "add":
                guard options.positional.count == 3 else { throw CLIError(usage) }
                let container = options.positional[1]
                try await session.requireContainer(container)
                let file = options.positional[2]
                guard let pem = try? String(contentsOfFile: file, encoding: .utf8) else { throw CLIError("cannot read the public key file \(file)") }
                let key = try await session.admin.addServerKey(
                    container: container, environment: try AdminSession.environment(options), name: options.string("name", default: "default"),
                    publicKeyPEM: pem)
                print(key.keyID)
            case "list":
                guard options.positional.count <= 2 else { throw CLIError(usage) }
                for key in try await session.admin.serverKeys(container: options.positional.count == 2 ? options.positional[1] : nil) {
                    print(
                        [
                            key.keyID, key.container, key.environment.rawValue, key.name, AdminSession.date(key.createdAt),
                            key.revokedAt == nil ? "live" : "revoked " + AdminSession.date(key.revokedAt),
                        ].joined(separator: "\t"))
                }
            case "revoke":
                guard options.positional.count == 2 else { throw CLIError(usage) }
                let key = try await session.admin.revokeServerKey(options.positional[1])
                print("revoked server-to-server key \(key.keyID) (\(key.name)) of \(key.container)/\(key.environment.rawValue)")
            default:
                throw CLIError(usage)
            }
        }
    }
}
