import Foundation
import StratusCrypto
import StratusServer
import StratusServerSQLite
import StratusTesting
import StratusWire
import Testing

/// `stratus push apns set|list|remove` through the real executable: the `.p8` key is stored
/// readable by the server's user only and never printed back.
@Suite struct APNsCommandTests {
    static let container = "iCloud.com.example.APNsCLI"

    /// The base64 lines of a PEM key (what must never be shown).
    static func keyMaterial(_ pem: String) -> [String] {
        pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.map(String.init)
    }

    @Test func setListRemoveNeverShowTheKeyAndKeepItPrivate() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-apns-cli")
        defer { directory.remove() }
        let data = directory.path("data")
        _ = try await StratusChildProcess.run(["container", "create", Self.container, "--data-dir", data])
        let key = try P256PrivateKey()
        let keyFile = directory.path("AuthKey_ABC123DEFG.p8")
        try Data(key.pemRepresentation.utf8).write(to: URL(fileURLWithPath: keyFile))
        let set = try await StratusChildProcess.runAllowingFailure([
            "push", "apns", "set", Self.container, "--key-file", keyFile, "--key-id", "ABC123DEFG", "--team-id", "TEAM123456",
            "--topic", "com.example.CLI", "--data-dir", data,
        ])
        #expect(set.status == 0, "\(set.errors)")
        #expect(set.output.contains("key ABC123DEFG"))
        let listed = try await StratusChildProcess.run(["push", "apns", "list", "--data-dir", data])
        #expect(listed.contains("\(Self.container)\tdevelopment\tkey ABC123DEFG"))
        #expect(listed.contains("\(Self.container)\tproduction\tkey ABC123DEFG"))
        #expect(listed.contains("topic com.example.CLI"))
        for line in Self.keyMaterial(key.pemRepresentation) {
            #expect(!set.output.contains(line) && !set.errors.contains(line) && !listed.contains(line), "the key was printed")
        }
        // Stored in the store, which only the server's user can read.
        let store = directory.path("data/stratus.sqlite")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: store)[.posixPermissions] as? NSNumber).intValue
        #expect(mode & 0o077 == 0, "the store is mode \(String(mode, radix: 8))")
        let folder = try #require(try FileManager.default.attributesOfItem(atPath: data)[.posixPermissions] as? NSNumber).intValue
        #expect(folder & 0o077 == 0)
        let opened = try await SQLiteRecordStore.open(path: store)
        let stored = try await opened.read { try $0.apnsCredentials(container: Self.container, environment: .production) }
        try await opened.close()
        #expect(stored.map { try? P256PrivateKey(pemRepresentation: $0.privateKeyPEM).publicKey } == key.publicKey)

        let removed = try await StratusChildProcess.run(["push", "apns", "remove", Self.container, "--environment", "development", "--data-dir", data])
        #expect(removed.contains("removed"))
        let after = try await StratusChildProcess.run(["push", "apns", "list", "--data-dir", data])
        #expect(!after.contains("\tdevelopment\t") && after.contains("\tproduction\t"))
    }

    @Test func badInputIsRefusedWithoutEchoingTheFile() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-apns-cli")
        defer { directory.remove() }
        let data = directory.path("data")
        _ = try await StratusChildProcess.run(["container", "create", Self.container, "--data-dir", data])
        let notAKey = directory.path("AuthKey_ABC123DEFG.p8")
        try Data("-----BEGIN PRIVATE KEY-----\nSECRETLOOKINGBYTES0123456789\n-----END PRIVATE KEY-----\n".utf8).write(to: URL(fileURLWithPath: notAKey))
        func set(_ extra: [String], key: String) async throws -> (status: Int32, output: String, errors: String) {
            try await StratusChildProcess.runAllowingFailure(
                [
                    "push", "apns", "set", Self.container, "--key-file", key, "--data-dir", data, "--key-id", "ABC123DEFG", "--team-id", "TEAM123456",
                    "--topic", "com.example.CLI",
                ] + extra
            )
        }
        let garbage = try await set([], key: notAKey)
        #expect(garbage.status != 0)
        #expect(garbage.errors.contains("not an APNs signing key"))
        #expect(!garbage.errors.contains("SECRETLOOKING") && !garbage.output.contains("SECRETLOOKING"))
        let good = directory.path("good.p8")
        try Data(try P256PrivateKey().pemRepresentation.utf8).write(to: URL(fileURLWithPath: good))
        let badKeyID = try await set(["--key-id", "abc"], key: good)
        #expect(badKeyID.status != 0 && badKeyID.errors.contains("key ID"))
        let badEnvironment = try await set(["--environment", "staging"], key: good)
        #expect(badEnvironment.status != 0 && badEnvironment.errors.contains("--environment"))
        let missing = try await set([], key: directory.path("nope.p8"))
        #expect(missing.status != 0 && missing.errors.contains("cannot be read"))
        let unknownContainer = try await StratusChildProcess.runAllowingFailure(
            [
                "push", "apns", "set", "iCloud.com.example.Nope", "--key-file", good, "--key-id", "ABC123DEFG", "--team-id", "TEAM123456",
                "--topic", "com.example.CLI", "--data-dir", data,
            ]
        )
        #expect(unknownContainer.status != 0 && unknownContainer.errors.contains("does not exist"))
        #expect(try await StratusChildProcess.run(["push", "apns", "list", "--data-dir", data]).contains("no container has APNs credentials"))
    }
}
