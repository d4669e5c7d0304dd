import Foundation
import StratusSQLite
import StratusTesting
import Testing

/// What `Deploy/` ships and how upgrades behave (Documentation/0015-operations.md, "Deployment").
@Suite struct DeploymentTests {
    static var repository: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent() }
    static let units = ["stratus.service", "stratus-backup.service", "stratus-backup.timer"]

    /// systemd reads every shipped unit without a complaint (an unknown or misspelt key is one),
    /// and the service keeps its hardening.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")))
    func theShippedSystemdUnitsAreValidAndHardened() async throws {
        let scratch = try TemporaryDirectory(prefix: "stratus-units")
        defer { scratch.remove() }
        let executable = try SpawnedCommand.builtExecutable("stratus")
        for unit in Self.units {
            let text = try String(contentsOf: Self.repository.appendingPathComponent("Deploy/systemd/" + unit), encoding: .utf8)
            try text.replacingOccurrences(of: "/usr/local/bin/stratus", with: executable).write(toFile: scratch.path(unit), atomically: true, encoding: .utf8)
        }
        let verified = try await SpawnedCommand.run(
            "/usr/bin/systemd-analyze", ["verify"] + Self.units.map { scratch.path($0) }, environment: ProcessInfo.processInfo.environment)
        #expect(verified.status == 0 && verified.errorOutput.isEmpty && verified.output.isEmpty, "\(verified.output)\(verified.errorOutput)")
        let service = try String(contentsOf: Self.repository.appendingPathComponent("Deploy/systemd/stratus.service"), encoding: .utf8)
        for option in [
            "NoNewPrivileges=yes", "ProtectSystem=strict", "PrivateTmp=yes", "ProtectHome=yes", "PrivateDevices=yes", "CapabilityBoundingSet=",
            "SystemCallFilter=@system-service", "UMask=0077",
        ] {
            #expect(service.contains("\n" + option), "stratus.service lost \(option)")
        }
    }

    /// Upgrades run `stratus migrate`; an older Stratus never opens a database a newer one
    /// migrated — neither `migrate` nor `serve` — and leaves it as it was.
    @Test func migrateAndServeRefuseASQLiteDatabaseANewerStratusMigrated() async throws {
        let scratch = try TemporaryDirectory(prefix: "stratus-downgrade")
        defer { scratch.remove() }
        let data = scratch.path("data")
        let first = try await WebServeProcess.stratus(["migrate"], dataDirectory: data)
        #expect(first.status == 0 && first.output.contains("up to date"), "\(first.errorOutput)")
        let database = try SQLiteConnection(configuration: SQLiteConfiguration(path: data + "/stratus.sqlite"))
        try database.execute("INSERT INTO stratus_migrations (identifier, applied_at) VALUES ('from-the-future', 0)")
        try database.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: data + "/stratus.sqlite"))

        let migrate = try await WebServeProcess.stratus(["migrate"], dataDirectory: data)
        #expect(
            migrate.status != 0 && migrate.errorOutput.contains("migrated by a newer") && migrate.errorOutput.contains("from-the-future"),
            "\(migrate.errorOutput)")
        let serve = try await WebServeProcess.refusal(["--open", "--data-dir", data])
        #expect(serve.status != 0 && serve.errors.contains("migrated by a newer"), "\(serve.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: data + "/stratus.sqlite")) == before, "a refused downgrade must not change the database")
    }
}
