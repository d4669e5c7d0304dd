import Foundation
import StratusClient
import StratusWire

/// How far `stratus import --from` got: a sync token per zone of a private database, a query
/// cursor per record type of a public one. Saved after every page the store committed, by
/// writing a new file and renaming it over the old one, so a killed copy resumes where its last
/// committed page ended (at worst it applies that page again, which changes nothing).
struct RemoteImportProgress: Codable, Equatable {
    /// The source server, container, environment and database: a file made for another copy is refused.
    var source: String
    /// Zone name → the sync token after the last page applied.
    var zoneTokens: [String: SyncToken] = [:]
    /// Record type → the cursor after the last page applied (public database).
    var typeCursors: [String: QueryCursor] = [:]
    /// Record types fully copied (public database).
    var finishedTypes: [String] = []

    /// Reads the file, or starts afresh when there is none.
    static func load(_ url: URL, source: String) throws -> RemoteImportProgress {
        guard FileManager.default.fileExists(atPath: url.path) else { return RemoteImportProgress(source: source) }
        let progress: RemoteImportProgress
        do {
            progress = try JSONDecoder().decode(RemoteImportProgress.self, from: Data(contentsOf: url))
        } catch {
            throw CLIError("the progress file \(url.path) cannot be read (\(error)); delete it to start the copy over")
        }
        guard progress.source == source else {
            throw CLIError("the progress file \(url.path) belongs to a copy of \(progress.source), not \(source); name another with --progress")
        }
        return progress
    }

    /// Writes the file atomically (a new file renamed over the old), mode 0600.
    func save(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let partial = url.appendingPathExtension("partial")
        guard FileManager.default.createFile(atPath: partial.path, contents: try encoder.encode(self), attributes: [.posixPermissions: 0o600]) else {
            throw CLIError("cannot write the progress file \(partial.path)")
        }
        guard rename(partial.path, url.path) == 0 else { throw CLIError("cannot replace the progress file \(url.path): errno \(errno)") }
    }
}
