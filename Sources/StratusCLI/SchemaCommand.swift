import Foundation
import StratusLogging
import StratusServer
import StratusServerSQLite
import StratusWire

/// `stratus schema export|import|deploy`: moves schemas between files, development and production.
///
/// The rules (strict documents, additive changes) live in ``SchemaDeployment`` and the
/// schema methods of `RecordStore`; this only parses arguments and prints.
enum SchemaCommand {
    static let usage = """
        stratus schema export <container> [--environment development|production] [--output file] [--data-dir ./.stratus]
        stratus schema import <container> <file> [--environment development|production] [--data-dir ./.stratus]
        stratus schema deploy <container> [--data-dir ./.stratus]

        export  prints the schema as JSON (or writes it to --output).
        import  replaces the environment's schema (default development) with the file's.
        deploy  copies the development schema to production.

        Import and deploy may only add record types and fields and change index flags
        (queryable, sortable, searchable); removing or retyping a field is refused.
        Run them with the server stopped: a running server enforces the new schema on
        writes at once, but its cached copy is refreshed only by the next records/modify.
        """

    static func run(_ options: Options) async throws {
        guard let action = options.positional.first else { throw CLIError(usage) }
        let known: Set<String> =
            switch action {
            case "export": ["data-dir", "database", "environment", "output"]
            case "import": ["data-dir", "database", "environment"]
            case "deploy": ["data-dir", "database"]
            default: throw CLIError("unknown schema command '\(action)'\n\n\(usage)")
            }
        let unknown = options.unknownFlags(known: known)
        guard unknown.isEmpty else {
            throw CLIError("unknown flag(s) for schema \(action): \(unknown.map { "--" + $0 }.joined(separator: ", "))\n\n\(usage)")
        }
        let expectedArguments = action == "import" ? 3 : 2
        guard options.positional.count == expectedArguments else { throw CLIError(usage) }
        let container = options.positional[1]
        let environmentName = options.string("environment", default: "development")
        guard let environment = Environment(rawValue: environmentName) else {
            throw CLIError("--environment must be development or production; got '\(environmentName)'")
        }

        let directory = try DataDirectory(options)
        let store = try await directory.openStore(logger: .disabled)
        do {
            switch action {
            case "export":
                let data = try SchemaDeployment.encode(try await store.exportSchema(container: container, environment: environment))
                let output = options.string("output", default: "-")
                if output == "-" {
                    FileHandle.standardOutput.write(data)
                } else {
                    try data.write(to: URL(fileURLWithPath: output), options: .atomic)
                    print("wrote the \(environment.rawValue) schema of \(container) to \(output)")
                }
            case "import":
                let path = options.positional[2]
                let data: Data
                do {
                    data = try Data(contentsOf: URL(fileURLWithPath: path))
                } catch {
                    throw CLIError("cannot read schema file '\(path)': \(error.localizedDescription)")
                }
                let schema = try SchemaDeployment.decode(data)
                let plan = try await store.importSchema(schema, container: container, environment: environment)
                report(plan, target: "the \(environment.rawValue) schema of \(container)", verb: "imported")
            default:
                let plan = try await store.deploySchema(container: container)
                report(plan, target: "the production schema of \(container)", verb: "deployed")
            }
        } catch {
            // NB: the command's own error is the one to report; closing is best effort.
            try? await store.close()
            if let error = error as? SchemaError { throw CLIError(error.message) }
            throw error
        }
        try await store.close()
    }

    private static func report(_ plan: SchemaPlan, target: String, verb: String) {
        guard !plan.isEmpty else {
            print("nothing to change: \(target) already matches")
            return
        }
        print("\(verb) \(plan.changes.count) change(s) to \(target):")
        for change in plan.changes { print("  \(change)") }
    }
}
