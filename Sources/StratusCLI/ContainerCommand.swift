import Foundation
import StratusLogging
import StratusServer
import StratusServerSQLite
import StratusWire

/// `stratus container create|list`: containers are made by the administrator, never by clients.
enum ContainerCommand {
    static let usage = """
        stratus container create <identifier> [--data-dir ./.stratus]
        stratus container list [--data-dir ./.stratus]

        A container identifier starts with 'iCloud.', e.g. iCloud.com.example.Notes.
        """

    static func run(_ options: Options) async throws {
        let unknown = options.unknownFlags(known: ["data-dir", "database"])
        guard unknown.isEmpty else { throw CLIError("unknown flag(s): \(unknown.map { "--" + $0 }.joined(separator: ", "))\n\n\(usage)") }
        let directory = try DataDirectory(options)
        let store = try await directory.openStore(logger: .disabled)
        switch options.positional.first {
        case "create":
            guard options.positional.count == 2 else { throw CLIError(usage) }
            let identifier = options.positional[1]
            if let problem = ContainerIdentifier.problem(with: identifier) { throw CLIError(problem) }
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let created = try await store.write { try $0.createContainer(identifier, createdAt: now) }
            print(created ? "created container \(identifier)" : "container \(identifier) already exists")
        case "list":
            for identifier in try await store.read({ try $0.containers() }) { print(identifier) }
        default:
            throw CLIError(usage)
        }
        try await store.close()
    }
}
