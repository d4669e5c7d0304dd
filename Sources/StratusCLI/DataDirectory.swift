import Foundation
import StratusCrypto
import StratusLogging
import StratusServerSQLite

/// The server's data directory: the SQLite store and the token secret.
struct DataDirectory {
    let url: URL

    init(path: String) throws {
        url = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var storePath: String { url.appendingPathComponent("stratus.sqlite").path }

    /// Where asset files live (content-addressed).
    var assetsURL: URL { url.appendingPathComponent("assets", isDirectory: true) }

    func openStore(logger: Logger) async throws -> SQLiteRecordStore {
        try await SQLiteRecordStore.open(path: storePath, logger: logger)
    }

    /// The secret that seals sync tokens, made on first use and kept (mode 0600) so tokens survive restarts.
    func tokenSecret() throws -> Data {
        let file = url.appendingPathComponent("token-secret")
        if let existing = try? Data(contentsOf: file), existing.count == 32 { return existing }
        let secret = try SecureRandom.bytes(count: 32)
        guard FileManager.default.createFile(atPath: file.path, contents: secret, attributes: [.posixPermissions: 0o600]) else {
            throw CLIError("could not write the token secret to \(file.path)")
        }
        return secret
    }
}
