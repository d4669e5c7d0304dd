import Foundation
import StratusClient
import StratusCrypto
import StratusLogging
import StratusServer
import StratusWire

/// `stratus import --from URL`: copies a public database (server-to-server key) or one user's
/// private database (that user's web auth token) from any CloudKit Web Services endpoint into
/// this store, page by page, resumable (Documentation/0020-export-format.md, "Copying from a server").
enum RemoteImportCommand {
    static let usage = """
        stratus import --from URL --container ID [--environment development|production]
                       (--key-id ID --key-file KEY.pem | --api-token TOKEN --web-auth-token TOKEN [--owner EMAIL])
                       [--record-types A,B] [--page-size 200] [--progress FILE]
                       [--data-dir ./.stratus | --database postgres://…] [--assets-directory DIR]

        Copies zones, records and assets from a CloudKit Web Services endpoint (another Stratus,
        or Apple's https://api.apple-cloudkit.com) into the same container here, which is made
        if missing. With a server-to-server key: the public database, by query, one record type
        at a time (--record-types; default: the types of this container's schema here — the
        public database has no change feed). With an API token and a user's web auth token: that
        user's private database, zone by zone through its change feed, into the private
        database of --owner (an account here; default: the account with the source's user
        record name). Each page is committed, then the progress file (default: in the data
        directory) notes the sync token or query cursor: a copy that is stopped or killed
        resumes where it was when run again, and a later run of a private copy fetches only
        what changed since. Records get change tags of this server.
        """

    static func run(_ options: Options) async throws {
        let flags: Set = [
            "from", "container", "environment", "key-id", "key-file", "api-token", "web-auth-token", "owner", "record-types", "page-size",
            "progress", "data-dir", "database", "assets-directory",
        ]
        let unknown = options.unknownFlags(known: flags)
        guard unknown.isEmpty else { throw CLIError("unknown flag(s): \(unknown.map { "--" + $0 }.joined(separator: ", "))\n\n\(usage)") }
        guard options.positional.isEmpty else { throw CLIError("import --from takes no DIR\n\n\(usage)") }
        let source = try RemoteSource(options)
        let dataDirectory = try DataDirectory(options)
        let store = try await dataDirectory.openStore(logger: .disabled)
        do {
            let assets = try AssetFileStore(directory: dataDirectory.assetsDirectory(options))
            let progressPath = options.string("progress", default: "")
            let progressURL =
                progressPath.isEmpty
                ? dataDirectory.url.appendingPathComponent("import-progress-\(source.identifier)-\(source.environment.rawValue)-\(source.scope.rawValue).json")
                : URL(fileURLWithPath: progressPath)
            var copier = RemoteCopier(
                source: source, store: store, target: CopyTarget(store: store, assets: assets), downloads: assets.uploadDirectory,
                progressURL: progressURL, progress: try RemoteImportProgress.load(progressURL, source: source.description),
                pageSize: try options.integer("page-size", default: 200, in: 1...200))
            try await copier.run(owner: options.string("owner", default: ""), recordTypes: options.list("record-types"))
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }
}

/// The source endpoint, container and credentials of a copy.
struct RemoteSource: CustomStringConvertible {
    let url: URL
    let identifier: String
    let environment: StratusWire.Environment
    let scope: DatabaseScope
    let container: Container

    init(_ options: Options) throws {
        let text = options.string("from", default: "")
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw CLIError("--from must be the http(s) URL of a CloudKit Web Services endpoint; got '\(text)'")
        }
        identifier = options.string("container", default: "")
        if let problem = ContainerIdentifier.problem(with: identifier) { throw CLIError("--container: \(problem)") }
        environment = try AdminSession.environment(options)
        let keyID = options.string("key-id", default: "")
        let apiToken = options.string("api-token", default: "")
        let authentication: Authentication
        if !keyID.isEmpty {
            let keyFile = options.string("key-file", default: "")
            guard apiToken.isEmpty, !keyFile.isEmpty else { throw CLIError("a server-to-server copy needs --key-id and --key-file, and no --api-token") }
            let pem: String
            do {
                pem = try String(contentsOfFile: keyFile, encoding: .utf8)
            } catch {
                throw CLIError("cannot read the key file \(keyFile): \(error.localizedDescription)")
            }
            authentication = .serverToServer(keyID: keyID, privateKey: try P256PrivateKey(pemRepresentation: pem))
            scope = .public
        } else {
            let webAuthToken = options.string("web-auth-token", default: "")
            guard !apiToken.isEmpty, !webAuthToken.isEmpty else {
                throw CLIError(
                    "import --from needs --key-id and --key-file (the public database) or --api-token and --web-auth-token (a user's private database)\n\n\(RemoteImportCommand.usage)"
                )
            }
            authentication = .apiToken(apiToken, webAuthToken: webAuthToken)
            scope = .private
        }
        self.url = url
        container = Container(identifier: identifier, environment: environment, serverURL: url, authentication: authentication)
    }

    /// The source as the progress file names it.
    var description: String { "\(url.absoluteString) \(identifier) \(environment.rawValue) \(scope.rawValue)" }
}
