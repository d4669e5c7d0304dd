import Foundation
import StratusServer
import StratusTesting
import Testing

/// `stratus schema …` through the real executable: arguments, output and exit status.
@Suite struct SchemaCommandTests {
    static let container = "iCloud.com.example.SchemaCLI"

    @Test func importExportAndDeployRoundTripThroughTheExecutable() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-schema-cli")
        defer { directory.remove() }
        let data = directory.path("data")
        _ = try await StratusChildProcess.run(["container", "create", Self.container, "--data-dir", data])
        let file = directory.path("schema.json")
        try Data(#"{"recordTypes":{"Note":{"fields":{"title":{"type":"STRING","queryable":true,"sortable":true,"searchable":true}}}}}"#.utf8)
            .write(to: URL(fileURLWithPath: file))

        let imported = try await StratusChildProcess.run(["schema", "import", Self.container, file, "--data-dir", data])
        #expect(imported.contains("+ record type Note"))
        #expect(imported.contains("+ field Note.title STRING (queryable, sortable, searchable)"))

        let deployed = try await StratusChildProcess.run(["schema", "deploy", Self.container, "--data-dir", data])
        #expect(deployed.contains("deployed 2 change(s) to the production schema of \(Self.container)"))
        let again = try await StratusChildProcess.run(["schema", "deploy", Self.container, "--data-dir", data])
        #expect(again.contains("nothing to change"))

        let exported = try await StratusChildProcess.run(["schema", "export", Self.container, "--environment", "production", "--data-dir", data])
        #expect(try SchemaDeployment.decode(Data(exported.utf8)) == SchemaDeployment.decode(Data(contentsOf: URL(fileURLWithPath: file))))
        let output = directory.path("out.json")
        _ = try await StratusChildProcess.run(["schema", "export", Self.container, "--output", output, "--data-dir", data])
        #expect(try String(contentsOfFile: output, encoding: .utf8) == exported)
    }

    @Test func refusalsExitNonZeroWithTheReason() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-schema-cli")
        defer { directory.remove() }
        let data = directory.path("data")
        _ = try await StratusChildProcess.run(["container", "create", Self.container, "--data-dir", data])
        let file = directory.path("bad.json")
        try Data(#"{"recordTypes":{"Note":{"fields":{"title":{"type":"STRNG"}}}}}"#.utf8).write(to: URL(fileURLWithPath: file))

        let unknownContainer = try await StratusChildProcess.runAllowingFailure(["schema", "export", "iCloud.nope", "--data-dir", data])
        #expect(unknownContainer.status == 1)
        #expect(unknownContainer.errors.contains("container 'iCloud.nope' does not exist"))

        let badType = try await StratusChildProcess.runAllowingFailure(["schema", "import", Self.container, file, "--data-dir", data])
        #expect(badType.status == 1)
        #expect(badType.errors.contains("field 'title' of record type 'Note' has unknown type 'STRNG'"))

        let badEnvironment = try await StratusChildProcess.runAllowingFailure([
            "schema", "export", Self.container, "--environment", "staging", "--data-dir", data,
        ])
        #expect(badEnvironment.status == 1)
        #expect(badEnvironment.errors.contains("--environment must be development or production; got 'staging'"))

        let badFlag = try await StratusChildProcess.runAllowingFailure(["schema", "deploy", Self.container, "--environment", "production", "--data-dir", data])
        #expect(badFlag.status == 1)
        #expect(badFlag.errors.contains("unknown flag(s) for schema deploy: --environment"))
    }
}
