import Foundation
import StratusClientCommands

/// The `stratus` executable: the server and its admin commands.
let usage = """
    Stratus — a self-hosted CloudKit-compatible sync server.

    Usage:
      stratus serve [flags]     run the server (stratus serve --help for flags)
      stratus migrate           apply schema migrations and exit (--database postgres://… for PostgreSQL)
      stratus backup FILE       one consistent archive of a running server's data (stratus backup --help)
      stratus restore FILE --data-dir NEW_DIR   a backup into a new data directory
      stratus export <container> --output DIR   one container in the portable format (stratus export --help)
      stratus import DIR        an export into this store (SQLite or --database postgres://…)
      stratus container create <identifier>
      stratus container list
      stratus schema export|import|deploy <container> …   (stratus schema --help for details)
      stratus user create|list|token|verify …   accounts (stratus user --help)
      stratus token create|list|revoke …   API tokens (stratus token --help)
      stratus key add|list|revoke …        server-to-server keys (stratus key --help)
      stratus push apns set|list|remove …  APNs credentials per container (stratus push --help)
      stratus records|zones|changes|kv|watch …   client commands (stratus records --help)
      stratus docs sync|conflicts <dir>    keep a folder in sync with the private database (stratus docs --help)
      stratus demo              two simulated devices sync notes through an embedded server, narrated
      stratus demo device …     one launch of the demo's notes app against a server (stratus demo device --help)
      stratus version           print the version
      stratus help              print this help
    """

// Everything the CLI creates (the data directory's databases, assets, secrets, exports) is
// readable by this user only; the stores and the data directory also set their modes themselves.
umask(0o077)

let arguments = CommandLine.arguments.dropFirst()
do {
    let command = arguments.first ?? "help"
    if ClientCommands.names.contains(command) {
        try await ClientCommands.run(
            command, arguments: Array(arguments.dropFirst()), environment: ProcessInfo.processInfo.environment,
            output: .standardOutput)
        exit(0)
    }
    let options = try Options(arguments: arguments.dropFirst(), environment: ProcessInfo.processInfo.environment)
    switch command {
    case "serve":
        if options.flag("help") {
            print(ServeCommand.usage)
        } else {
            try await ServeCommand.run(options)
        }
    case "migrate":
        if options.flag("help") {
            print(MigrateCommand.usage)
        } else {
            try await MigrateCommand.run(options)
        }
    case "backup", "restore":
        if options.flag("help") {
            print(BackupCommand.usage)
        } else {
            try await BackupCommand.run(command, options)
        }
    case "export", "import":
        if options.flag("help") {
            print(ExportCommand.usage)
        } else {
            try await ExportCommand.run(command, options)
        }
    case "container":
        try await ContainerCommand.run(options)
    case "schema":
        if options.flag("help") {
            print(SchemaCommand.usage)
        } else {
            try await SchemaCommand.run(options)
        }
    case "user":
        try await UserCommand.run(options)
    case "token":
        try await TokenCommand.run(options)
    case "key":
        try await KeyCommand.run(options)
    case "push":
        try await PushCommand.run(options)
    case "demo":
        if options.positional.first == "device" {
            if options.flag("help") {
                print(DemoDeviceCommand.usage)
            } else {
                exit(try await DemoDeviceCommand.run(options))
            }
        } else if options.flag("help") {
            print(DemoCommand.usage)
        } else {
            exit(try await DemoCommand.run() ? 0 : 1)
        }
    case "version", "--version":
        print("stratus 0.1.0")
    case "help", "--help", "-h":
        print(usage)
    default:
        throw CLIError("unknown command '\(command)'\n\n\(usage)")
    }
} catch {
    FileHandle.standardError.write(Data("stratus: \(error)\n".utf8))
    exit(1)
}
