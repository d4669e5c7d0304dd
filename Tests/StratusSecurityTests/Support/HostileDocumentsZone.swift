import Foundation
import StratusClient
import StratusCrypto
import StratusDocuments
import StratusServer
import StratusTesting
import StratusWire

#if canImport(Glibc)
import Glibc
#endif

/// A live server on loopback, one signed-in user, and a sandbox folder holding the victim's synced
/// folder (`root`) next to things that must never change (`outside`).
///
/// The attacker writes records straight into the user's `StratusDocuments` zone, as a malicious
/// server (or any other client of the same account) would.
struct HostileDocumentsFixture {
    let server: TestCloudKitServer
    let user: TestCloudKitServer.SignedInUser
    let sandbox: TemporaryDirectory

    /// The victim's synced folder.
    var root: URL { sandbox.url.appendingPathComponent("root", isDirectory: true) }
    /// Files and folders beside the synced folder that no record may touch.
    var outside: URL { sandbox.url.appendingPathComponent("outside", isDirectory: true) }

    static func run(_ body: (HostileDocumentsFixture) async throws -> Void) async throws {
        let server = try await TestCloudKitServer.startAuthenticated()
        let sandbox = try TemporaryDirectory(prefix: "attack-docs")
        do {
            let user = try await server.signedInUser("victim@example.com")
            try await body(HostileDocumentsFixture(server: server, user: user, sandbox: sandbox))
        } catch {
            await server.stop()
            sandbox.remove()
            throw error
        }
        await server.stop()
        sandbox.remove()
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

    /// The victim's documents container over ``root``.
    func victim(device: String = "victim") throws -> DocumentsContainer {
        var options = DocumentsContainer.Configuration()
        options.deviceName = device
        options.chunkSize = 1 << 20
        options.rescanInterval = nil
        return try DocumentsContainer(directory: root, container: container(), configuration: options)
    }

    /// A symbolic link `root/name` to the folder `outside/target` (the user's own, inside the synced folder).
    func linkInsideRoot(_ name: String, to target: String) throws {
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent(name), withDestinationURL: outside.appendingPathComponent(target, isDirectory: true))
    }

    /// The attacker's view of the zone (the same account, straight through the SDK).
    var attacker: HostileDocumentsZone { HostileDocumentsZone(database: container().privateCloudDatabase, scratch: sandbox.url) }

    /// The flags of `stratus docs …` for this server and user.
    var commandFlags: [String] {
        [
            "--server", server.http.url("").absoluteString, "--container", TestCloudKitServer.container, "--api-token", user.apiToken,
            "--web-auth-token", user.webAuthToken, "--device", "cli",
        ]
    }
}

/// Writes `Document` and `DocumentVersion` records with any field values into the documents zone.
struct HostileDocumentsZone {
    let database: Database
    /// Where asset files are staged before upload (removed with the sandbox).
    let scratch: URL

    static let zoneID = ZoneID(zoneName: "StratusDocuments")

    func ensureZone() async throws {
        _ = try await database.save(RecordZone(zoneName: Self.zoneID.zoneName))
    }

    /// A `Document` record with real content (one uploaded chunk) and the fields the engine reads.
    func document(
        _ path: String, _ text: String, name: String = UUID().uuidString, size: Int64? = nil, chunkSize: Int64 = 1 << 20,
        device: String = "attacker"
    ) throws -> StratusClient.Record {
        var record = StratusClient.Record(recordType: "Document", recordID: RecordID(recordName: name, zoneID: Self.zoneID))
        try fill(&record, path: path, content: Data(text.utf8), size: size, chunkSize: chunkSize, device: device)
        return record
    }

    /// A `DocumentVersion` record (a conflict version of `document`) whose record name is `name`.
    func version(
        named name: String, of document: String, path: String, _ text: String, device: String = "attacker"
    ) throws
        -> StratusClient.Record
    {
        var record = StratusClient.Record(recordType: "DocumentVersion", recordID: RecordID(recordName: name, zoneID: Self.zoneID))
        try fill(&record, path: path, content: Data(text.utf8), size: nil, chunkSize: 1 << 20, device: device)
        record["document"] = document
        return record
    }

    private func fill(
        _ record: inout StratusClient.Record, path: String, content: Data, size: Int64?, chunkSize: Int64, device: String
    ) throws {
        record["path"] = path
        record["size"] = size ?? Int64(content.count)
        record["contentHash"] = SHA256.hash(content).hexString
        record["modified"] = Date(timeIntervalSince1970: 1_750_000_000)
        record["device"] = device
        record["chunkSize"] = chunkSize
        if !content.isEmpty {
            let file = scratch.appendingPathComponent("asset-" + UUID().uuidString)
            try content.write(to: file)
            record["chunkHashes"] = [SHA256.hash(content).hexString]
            record["chunks"] = FieldValue.assetList([Asset(fileURL: file)])
        }
    }

    /// Saves every record; fails the test when the server refuses one (the attack must be delivered).
    func save(_ records: [StratusClient.Record]) async throws {
        let results = try await database.modifyRecords(saving: records, deleting: [], atomically: false)
        for record in records {
            guard case .success? = results.saveResults[record.recordID] else {
                let answer = String(describing: results.saveResults[record.recordID])
                throw AttackSetupFailure(description: "the server refused hostile record '\(record.recordID.recordName)': \(answer)")
            }
        }
    }

    /// The server's current record with `name`, with `path` changed (a hostile rename).
    func renaming(_ name: String, to path: String) async throws -> StratusClient.Record {
        var record = try await database.record(for: RecordID(recordName: name, zoneID: Self.zoneID))
        record["path"] = path
        return record
    }

    func delete(_ names: [String]) async throws {
        let ids = names.map { RecordID(recordName: $0, zoneID: Self.zoneID) }
        _ = try await database.modifyRecords(saving: [], deleting: ids, atomically: false)
    }
}

/// Everything below a folder, by relative path: `dir`, `link → target` or `file <sha-256>`; symbolic
/// links are listed, not followed.
func treeSnapshot(_ folder: URL) -> [String: String] {
    var found: [String: String] = [:]
    func walk(_ directory: String, _ relative: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names {
            let full = directory + "/" + name
            let child = relative.isEmpty ? name : relative + "/" + name
            var info = stat()
            guard lstat(full, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                found[child] = "dir"
                walk(full, child)
            case S_IFLNK:
                found[child] = "link → " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: full)) ?? "?")
            default:
                let data = FileManager.default.contents(atPath: full) ?? Data()
                found[child] = "file " + SHA256.hash(data).hexString
            }
        }
    }
    walk(folder.path, "")
    return found
}

/// The regular files below `root` (not `.stratus`, symbolic links not followed), sorted.
func documentFiles(in root: URL) -> [String] {
    treeSnapshot(root).filter { $0.value.hasPrefix("file ") && !$0.key.hasPrefix(".stratus/") }.map(\.key).sorted()
}

/// Runs `body` and returns its error instead of throwing it (so a test can check what happened around it).
func failure(of body: () async throws -> Void) async -> (any Error)? {
    do {
        try await body()
        return nil
    } catch {
        return error
    }
}

/// The attack could not be set up (the server refused to store what the test plants).
struct AttackSetupFailure: Error, CustomStringConvertible {
    var description: String
}
