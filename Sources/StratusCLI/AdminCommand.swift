import Foundation
import StratusConsole
import StratusLogging
import StratusServer

/// `stratus admin create|list|remove`: the web console's administrators (Documentation/0022-console.md).
enum AdminCommand {
    static let usage = """
        stratus admin create <email> --password-stdin
        stratus admin list
        stratus admin remove <email-or-id>

        Console administrators sign in to the web console at /console; they are not app users
        and no app credential opens the console.
        create  adds an administrator. The password (at least 12 characters) is read from
                standard input with --password-stdin, or from STRATUS_PASSWORD; it is stored as
                an Argon2id hash.
        list    prints every administrator: ID, e-mail address, created.
        remove  removes an administrator; their console sessions end at once.

        Every command takes --data-dir (default ./.stratus, or STRATUS_DATA_DIR) or --database.
        """

    static func run(_ options: Options) async throws {
        if options.flag("help") { return print(usage) }
        try AdminSession.checkFlags(options, known: ["password-stdin"], usage: usage)
        let directory = try DataDirectory(options)
        let store = try await directory.openStore(logger: .disabled)
        do {
            try await run(options, administration: ConsoleAdministration(store: store))
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    private static func run(_ options: Options, administration: ConsoleAdministration) async throws {
        switch options.positional.first {
        case "create":
            guard options.positional.count == 2 else { throw CLIError(usage) }
            guard let password = try UserCommand.readPassword(options) else {
                throw CLIError("an administrator needs a password: pipe it to --password-stdin (or set STRATUS_PASSWORD)")
            }
            let administrator = try await administration.create(email: options.positional[1], password: password)
            print("\(administrator.emailAddress) may sign in to the console (ID \(administrator.id))")
        case "list":
            guard options.positional.count == 1 else { throw CLIError(usage) }
            for administrator in try await administration.list() {
                print([administrator.id, administrator.emailAddress, AdminSession.date(administrator.createdAt)].joined(separator: "\t"))
            }
        case "remove":
            guard options.positional.count == 2 else { throw CLIError(usage) }
            let removed = try await administration.remove(options.positional[1])
            print("removed \(removed.emailAddress)")
        default:
            throw CLIError(usage)
        }
    }
}
