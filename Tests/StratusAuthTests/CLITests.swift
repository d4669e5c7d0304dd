import Foundation
import StratusCrypto
import StratusHTTP
import StratusLogging
import StratusServer
import StratusServerSQLite
import StratusTesting
import StratusWire
import Testing

/// A command that failed.
struct CLIFailure: Error, CustomStringConvertible {
    var description: String
}

/// `stratus user|token|key` through the real executable, then a server on the same data directory.
@Suite struct CLITests {
    static let container = "iCloud.com.example.CLI"

    /// Runs `stratus <arguments>` and returns its exit status, standard output and standard error.
    static func stratus(
        _ arguments: [String], environment: [String: String] = [:], filePath: String = #filePath
    ) async throws -> (status: Int32, output: String, errors: String) {
        let executable = try SpawnedCommand.builtExecutable("stratus", filePath: filePath)
        // NB: posix_spawn rather than Foundation's Process, whose run() was seen crashing under parallel tests.
        let result = try await SpawnedCommand.run(
            executable, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }
        )
        return (result.status, result.output, result.errorOutput)
    }

    /// Runs `stratus <arguments> --data-dir <data>` and returns its trimmed output, failing on a non-zero exit.
    static func run(_ arguments: [String], data: String, environment: [String: String] = [:]) async throws -> String {
        let result = try await stratus(arguments + ["--data-dir", data], environment: environment)
        guard result.status == 0 else {
            throw CLIFailure(description: "stratus \(arguments.joined(separator: " ")) exited \(result.status): \(result.errors)")
        }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func everyAccountCommandHasHelp() async throws {
        for command in ["user", "token", "key"] {
            let result = try await Self.stratus([command, "--help"])
            #expect(result.status == 0)
            #expect(result.output.contains("stratus \(command) "))
        }
        #expect(try await Self.stratus(["help"]).output.contains("stratus token create|list|revoke"))
        #expect(try await Self.stratus(["serve", "--help"]).output.contains("--open"))
    }

    @Test func adminCommandsMakeCredentialsThatAServerOnTheSameDataAccepts() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-auth-cli")
        defer { directory.remove() }
        let data = directory.path("data")
        _ = try await Self.run(["container", "create", Self.container], data: data)

        let recordName = try await Self.run(
            ["user", "create", "ada@example.com", "--given-name", "Ada", "--discoverable"], data: data,
            environment: ["STRATUS_PASSWORD": "correct horse"])
        #expect(recordName.hasPrefix("_") && recordName.count == 33)
        let duplicate = try await Self.stratus(["user", "create", "ADA@example.com", "--data-dir", data])
        #expect(duplicate.status != 0)
        #expect(duplicate.errors.contains("already exists"))
        #expect(try await Self.run(["user", "list"], data: data).contains("\(recordName)\tada@example.com\tAda\tdiscoverable"))

        let apiToken = try await Self.run(["token", "create", Self.container, "--name", "web", "--callback", "https://app.example.com/cb"], data: data)
        #expect(apiToken.count == 64)
        #expect(try await Self.run(["token", "list", Self.container], data: data).contains("\(apiToken.prefix(8))…\t\(Self.container)\tdevelopment\tweb"))
        let missing = try await Self.stratus(["token", "create", "iCloud.com.example.Missing", "--data-dir", data])
        #expect(missing.status != 0)
        #expect(missing.errors.contains("stratus container create iCloud.com.example.Missing"))
        let webAuthToken = try await Self.run(["user", "token", "ada@example.com", Self.container], data: data)
        #expect(webAuthToken.count >= 100)

        let key = try P256PrivateKey()
        let pemFile = directory.path("public.pem")
        try Data(key.publicKey.pemRepresentation.utf8).write(to: URL(fileURLWithPath: pemFile))
        let keyID = try await Self.run(["key", "add", Self.container, pemFile, "--name", "backend"], data: data)
        #expect(keyID.count == 64)
        #expect(try await Self.run(["key", "list"], data: data).contains("\(keyID)\t\(Self.container)\tdevelopment\tbackend"))

        // A server on the same data directory accepts what the CLI made.
        let store = try await SQLiteRecordStore.open(path: data + "/stratus.sqlite")
        var configuration = ServiceConfiguration(tokenSecret: try Data(contentsOf: URL(fileURLWithPath: data + "/token-secret")))
        configuration.authentication.requiresAuthentication = true
        let service = CloudKitService(store: store, accounts: store, configuration: configuration, logger: .disabled)
        var router = Router()
        service.register(on: &router)
        let http = try TestHTTPServer(responder: router)
        let path = "/database/1/\(Self.container)/development/public/users/caller"
        let query = "ckAPIToken=\(apiToken)&ckWebAuthToken=\(TestCloudKitServer.percentEncoded(webAuthToken))"
        let caller = try await RawHTTPConnection.exchange(port: http.port, "GET \(path)?\(query) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let signedPath = "/database/1/\(Self.container)/development/public/zones/list"
        var signed = "GET \(signedPath) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        for (name, value) in try ServerToServerSignature.headers(keyID: keyID, date: Date(), body: Data(), path: signedPath, key: key) {
            signed += "\(name): \(value)\r\n"
        }
        let zones = try await RawHTTPConnection.exchange(port: http.port, signed + "\r\n")

        // Revoking through the CLI takes effect on the running server's next request.
        _ = try await Self.run(["token", "revoke", String(apiToken.prefix(8))], data: data)
        _ = try await Self.run(["key", "revoke", keyID], data: data)
        let afterRevoke = try await RawHTTPConnection.exchange(port: http.port, "GET \(path)?\(query) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let zonesAfterRevoke = try await RawHTTPConnection.exchange(port: http.port, signed + "\r\n")
        await http.stop()
        try await store.close()

        #expect(caller.status == 200)
        #expect(String(decoding: caller.body, as: UTF8.self).contains(recordName))
        #expect(zones.status == 200)
        #expect(afterRevoke.status == 401)
        #expect(zonesAfterRevoke.status == 401)
    }
}
