import Foundation
import StratusClient
import StratusDocuments
import StratusServer
import StratusTesting
import StratusWire
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One server on loopback, one signed-in user, and devices: each its own directory and transport.
struct DocumentsFixture {
    let server: TestCloudKitServer
    let user: TestCloudKitServer.SignedInUser
    let directory: TemporaryDirectory

    /// A device: a documents container over `<tmp>/<name>`, with a transport that counts and can fail.
    func device(
        _ name: String, chunkSize: Int64 = 1 << 20, eager: Bool = true, pushes: Bool = false,
        debounce: Duration = .milliseconds(300), transport: CountingTransport = CountingTransport()
    ) throws -> Device {
        let container = container(transport: transport)
        var options = DocumentsContainer.Configuration()
        options.deviceName = name
        options.chunkSize = chunkSize
        options.downloadsEagerly = eager
        options.transport = transport
        options.observesPushes = pushes
        options.notifications.pollTimeout = .seconds(20)
        options.notifications.backoff.initialBackoff = .milliseconds(50)
        options.rescanInterval = nil
        options.debounce = debounce
        let root = directory.url.appendingPathComponent(name, isDirectory: true)
        return Device(documents: try DocumentsContainer(directory: root, container: container, configuration: options), transport: transport)
    }

    /// A container signed in as the user.
    func container(transport: (any HTTPTransport)? = nil) -> Container {
        var configuration = ClientConfiguration()
        configuration.requestTimeout = TestTimeScale.scaled(.seconds(60))
        configuration.sleep = { _ in }
        return Container(
            identifier: TestCloudKitServer.container, environment: .development, serverURL: server.http.url(""),
            authentication: .apiToken(user.apiToken, webAuthToken: user.webAuthToken), configuration: configuration, transport: transport)
    }

    /// The names of every record in the documents zone on the server.
    func serverRecordNames() async throws -> [String] {
        let changes = try await container().privateCloudDatabase.allRecordZoneChanges(inZoneWith: ZoneID(zoneName: "StratusDocuments"), since: nil)
        return changes.modificationResultsByID.keys.map(\.recordName).sorted()
    }

    static func run(_ body: (DocumentsFixture) async throws -> Void) async throws {
        let server = try await TestCloudKitServer.startAuthenticated()
        let directory = try TemporaryDirectory(prefix: "docs-tests")
        do {
            let user = try await server.signedInUser("docs@example.com")
            try await body(DocumentsFixture(server: server, user: user, directory: directory))
        } catch {
            await server.stop()
            directory.remove()
            throw error
        }
        await server.stop()
        directory.remove()
    }
}

/// One device's container and transport, with file helpers on its directory.
struct Device {
    let documents: DocumentsContainer
    let transport: CountingTransport

    var root: URL { documents.directory }

    func write(_ path: String, _ text: String) throws { try write(path, Data(text.utf8)) }

    func write(_ path: String, _ data: Data) throws {
        try documents.coordinateWriting(at: path) { try data.write(to: $0) }
    }

    func read(_ path: String) throws -> String? {
        guard let data = try data(path) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    func data(_ path: String) throws -> Data? {
        let url = root.appendingPathComponent(path)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try Data(contentsOf: url)
    }

    /// Every document path on disk (not `.stratus`), sorted.
    func files() throws -> [String] {
        var found: [String] = []
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            let relative = String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
            if relative.hasPrefix(".stratus") { continue }
            if (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true { found.append(relative) }
        }
        return found.sorted()
    }

    @discardableResult
    func sync() async throws -> DocumentsSyncReport { try await documents.sync() }
}

/// A transport that counts asset bytes sent and received, and can fail asset downloads after some.
final class CountingTransport: HTTPTransport {
    private struct State {
        var uploadedBytes = 0
        var uploads = 0
        var downloadedBytes = 0
        var downloads = 0
        var failDownloadsAfter: Int?
        var offline = false
        var lostResponses: String?
        var hook: (@Sendable (TransportRequest) -> Void)?
        var redirect: Redirect?
    }

    /// Requests sent to another server instead, with other credentials (a server wiped and replaced).
    struct Redirect: Sendable {
        var from: String
        var to: URL
        var query: [String: String]
    }

    private let inner = DefaultTransport.make()
    private let state = Mutex(State())

    var uploadedBytes: Int { state.withLock { $0.uploadedBytes } }
    var uploads: Int { state.withLock { $0.uploads } }
    var downloadedBytes: Int { state.withLock { $0.downloadedBytes } }
    var downloads: Int { state.withLock { $0.downloads } }

    /// Lets `count` more asset downloads through, then fails each one (`nil`: never fail).
    func failDownloads(after count: Int?) { state.withLock { $0.failDownloadsAfter = count } }

    /// Sends every request whose path ends with `suffix` but loses its answer, as when the process or the
    /// server is killed after the server committed (`nil`: answer normally).
    func loseResponses(of suffix: String?) { state.withLock { $0.lostResponses = suffix } }

    /// Runs `hook` before each request is sent (the test acting while a sync is under way); `nil` removes it.
    func onRequest(_ hook: (@Sendable (TransportRequest) -> Void)?) { state.withLock { $0.hook = hook } }

    /// Sends requests for `server` to `replacement` instead, with its user's tokens.
    func redirect(from server: URL, to replacement: URL, apiToken: String, webAuthToken: String) {
        let redirect = Redirect(
            from: server.absoluteString.trimmingSuffix("/"), to: replacement,
            query: ["ckAPIToken": apiToken, "ckWebAuthToken": webAuthToken])
        state.withLock { $0.redirect = redirect }
    }

    /// Fails every request, as a device without network.
    var isOffline: Bool {
        get { state.withLock { $0.offline } }
        set { state.withLock { $0.offline = newValue } }
    }

    func resetCounts() {
        state.withLock {
            $0.uploadedBytes = 0
            $0.uploads = 0
            $0.downloadedBytes = 0
            $0.downloads = 0
        }
    }

    func send(_ original: TransportRequest) async throws -> TransportResponse {
        let (hook, redirect, lost) = state.withLock { ($0.hook, $0.redirect, $0.lostResponses) }
        hook?(original)
        let request = redirect.map { Self.redirected(original, $0) } ?? original
        let path = request.url.path
        let refuse = state.withLock { state -> Bool in
            if state.offline { return true }
            guard path.contains("/assets/download/"), let remaining = state.failDownloadsAfter else { return false }
            if remaining <= 0 { return true }
            state.failDownloadsAfter = remaining - 1
            return false
        }
        if refuse { throw URLError(.notConnectedToInternet) }
        let response = try await inner.send(request)
        if let lost, path.hasSuffix(lost) { throw URLError(.networkConnectionLost) }
        state.withLock {
            if path.contains("/assets/upload/") {
                $0.uploads += 1
                $0.uploadedBytes += request.body.count
            } else if path.contains("/assets/download/") {
                $0.downloads += 1
                $0.downloadedBytes += response.body.count
            }
        }
        return response
    }

    private static func redirected(_ request: TransportRequest, _ redirect: Redirect) -> TransportRequest {
        let text = request.url.absoluteString
        guard text.hasPrefix(redirect.from),
            var components = URLComponents(string: redirect.to.absoluteString.trimmingSuffix("/") + text.dropFirst(redirect.from.count))
        else { return request }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        components.percentEncodedQueryItems = components.percentEncodedQueryItems?.map { item in
            redirect.query[item.name].map { URLQueryItem(name: item.name, value: $0.addingPercentEncoding(withAllowedCharacters: allowed)) } ?? item
        }
        var moved = request
        moved.url = components.url ?? request.url
        return moved
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}

/// `count` random bytes from the kernel (fast even in debug builds, so big fixtures do not hold a
/// cooperative thread that other tests' servers need).
func randomBytes(_ count: Int) throws -> Data {
    let source = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom"))
    defer { try? source.close() }
    let data = try source.read(upToCount: count) ?? Data()
    guard data.count == count else { throw CocoaError(.fileReadUnknown) }
    return data
}

extension DocumentsFixture {
    /// Two devices with the same settings (`A` and `B` unless named).
    func pair(_ first: String = "A", _ second: String = "B", chunkSize: Int64 = 1 << 20) throws -> (Device, Device) {
        (try device(first, chunkSize: chunkSize), try device(second, chunkSize: chunkSize))
    }
}

/// Writes a document on `a` and syncs it to `b`: the common base of a two-device test.
func seed(_ path: String, _ text: String, from a: Device, to b: Device) async throws {
    try await seed(path, Data(text.utf8), from: a, to: b)
}

/// Writes a document on `a` and syncs it to `b`.
func seed(_ path: String, _ data: Data, from a: Device, to b: Device) async throws {
    try a.write(path, data)
    try await a.sync()
    try await b.sync()
}
