import Foundation
import StratusClient
import StratusDocuments

/// `stratus docs sync|conflicts|download`: keep a folder in sync with the private database, list conflicts.
///
/// One process owns a folder (``DocumentsContainer``'s lock). `docs conflicts` beside a running
/// `docs sync` reads that owner's state instead of syncing a second time; `docs download` asks the user
/// to stop it. `--on-demand` (or `--eager`) is remembered by the folder for later commands.
enum DocumentCommands {
    static let usage = """
          stratus docs sync <dir> [--once] [--device NAME] [--on-demand|--eager] [--no-push] [--interval SECONDS]
                                   keep a folder in sync (inotify, pushes, periodic rescan), printing what moves;
                                   --on-demand (remembered by the folder) leaves remote documents as placeholders
          stratus docs conflicts <dir>   list documents with unresolved conflict versions (beside a running sync: its state)
          stratus docs download <dir> <path>   download a placeholder now, printing progress
        """

    static func docs(_ options: ClientOptions, container: Container, output: ClientOutput) async throws {
        var words = options.positional
        guard words.count >= 2 else { throw ClientCommandError("docs needs a verb and a folder\n\n\(usage)") }
        let verb = words.removeFirst()
        let folder = URL(fileURLWithPath: words.removeFirst(), isDirectory: true)
        guard ["sync", "conflicts", "download"].contains(verb) else { throw ClientCommandError("unknown docs command '\(verb)'\n\n\(usage)") }
        var configuration = DocumentsContainer.Configuration()
        if let device = options.string("device") { configuration.deviceName = device }
        configuration.downloadsEagerly =
            options.flag("on-demand") ? false : options.flag("eager") ? true : DocumentsContainer.lastDownloadsEagerly(in: folder) ?? true
        configuration.observesPushes = !options.flag("no-push")
        if let seconds = try options.integer("interval") { configuration.rescanInterval = .seconds(seconds) }
        configuration.onActivity = { output.line($0.description) }
        let documents: DocumentsContainer
        do {
            documents = try DocumentsContainer(directory: folder, container: container, configuration: configuration)
        } catch let error as DocumentsError where error.code == .folderInUse && verb == "conflicts" {
            configuration.opensReadOnly = true
            let owner = DocumentsContainer.owningProcess(of: folder).map { " (pid \($0))" } ?? ""
            output.line("\(folder.path) is synced by another process\(owner): its last sync says")
            let reader = try DocumentsContainer(directory: folder, container: container, configuration: configuration)
            try await listConflicts(reader, output: output)
            return await reader.close()
        }
        switch verb {
        case "sync":
            try await documents.sync()
            guard !options.flag("once") else { return await documents.close() }
            try await documents.startWatching()
            output.line("watching \(folder.path) (Ctrl-C to stop)")
            while !Task.isCancelled { try await Task.sleep(for: .seconds(3600)) }
        case "conflicts":
            try await documents.sync()
            try await listConflicts(documents, output: output)
            await documents.close()
        default:
            guard let path = words.first else { throw ClientCommandError("docs download needs a document path") }
            try await documents.sync()
            try await documents.download(path) { output.line(String(format: "%@ %.0f%%", path, $0.fractionCompleted * 100)) }
            await documents.close()
        }
    }

    private static func listConflicts(_ documents: DocumentsContainer, output: ClientOutput) async throws {
        let conflicts = try await documents.allUnresolvedConflicts()
        if conflicts.isEmpty { output.line("no conflicts") }
        for (path, versions) in conflicts.sorted(by: { $0.key < $1.key }) {
            let current = try await documents.currentVersion(of: path)
            output.line("\(path)\tcurrent: \(describe(current))")
            for version in versions { output.line("\(path)\tconflict: \(describe(version))") }
        }
    }

    /// `id device date size` of a version, one line.
    static func describe(_ version: DocumentVersion) -> String {
        let date = ISO8601DateFormatter().string(from: version.modificationDate)
        return "\(version.id) from \(version.device) at \(date), \(version.size) bytes"
    }
}
