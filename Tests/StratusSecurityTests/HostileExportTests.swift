import Foundation
import StratusCrypto
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// An export directory is a file tree from outside: `stratus import` must never read or write
/// where it says, must refuse anything damaged or inconsistent by name, and must leave the
/// target store without the container when it refuses (issue 18).
@Suite struct HostileExportTests {
    static let container = TestCloudKitServer.container

    /// An export of an open-mode server: zone `Notes` with `n1`, `n2` and `photo` (an asset).
    static func makeExport(in scratch: TemporaryDirectory) async throws -> URL {
        let directory = scratch.url.appendingPathComponent("export")
        try await withServer(.sqlite) { server in
            #expect(try await server.exchange("zones/modify", Body.createZone("Notes")).status == 200)
            #expect(try await server.exchange("records/modify", Body.create("n1", zone: "Notes")).status == 200)
            #expect(try await server.exchange("records/modify", Body.create("n2", zone: "Notes")).status == 200)
            let asset = try await server.uploadAsset(Data("photo bytes".utf8), recordType: "Photo", fieldName: "image", query: [])
            let json = String(decoding: try WireCoding.encode(asset), as: UTF8.self)
            let body =
                #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"create","record":{"recordName":"photo","recordType":"Photo","fields":{"image":{"value":\#(json)}}}}]}"#
            #expect(try await server.exchange("records/modify", body).status == 200)
            let assets = try AssetFileStore(directory: server.directory.url.appendingPathComponent("assets"))
            let exporter = ContainerExporter(store: server.store, accounts: server.store as? any AccountStore, assets: assets, source: "sqlite")
            _ = try await exporter.export(container: Self.container, to: directory)
        }
        return directory
    }

    /// A copy of the export to spoil.
    static func copy(_ export: URL, _ name: String, in scratch: TemporaryDirectory) throws -> URL {
        let target = scratch.url.appendingPathComponent(name)
        try FileManager.default.copyItem(at: export, to: target)
        return target
    }

    /// Replaces text in a file of the export and updates the manifest to match, so only the
    /// import's checks of the values can catch it.
    static func reseal(_ directory: URL, _ file: String, replacing old: String, with new: String) throws {
        let url = directory.appendingPathComponent(file)
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains(old), "\(file) has no '\(old)': \(text)")
        let bytes = Data(text.replacingOccurrences(of: old, with: new).utf8)
        try bytes.write(to: url)
        try editManifest(directory) { manifest in
            for index in manifest.files.indices where manifest.files[index].name == file {
                manifest.files[index].size = Int64(bytes.count)
                manifest.files[index].sha256 = SHA256.hash(bytes).hexString
            }
        }
    }

    static func editManifest(_ directory: URL, _ edit: (inout ExportManifest) -> Void) throws {
        let url = directory.appendingPathComponent("stratus-export.json")
        var manifest = try JSONDecoder().decode(ExportManifest.self, from: Data(contentsOf: url))
        edit(&manifest)
        try JSONEncoder().encode(manifest).write(to: url)
    }

    /// Runs `stratus import`, expecting a refusal naming `reason`, and checks the store has no container.
    static func expectRefused(_ export: URL, into data: String, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let result = try await WebServeProcess.stratus(["import", export.path], dataDirectory: data)
        #expect(result.status != 0, "the import of \(export.lastPathComponent) must be refused", sourceLocation: sourceLocation)
        #expect(result.errorOutput.contains(reason), "\(result.errorOutput)", sourceLocation: sourceLocation)
        let containers = try await WebServeProcess.stratus(["container", "list"], dataDirectory: data)
        #expect(!containers.output.contains(container), "a refused import must leave nothing: \(containers.output)", sourceLocation: sourceLocation)
    }

    @Test func pathsLinksAndUnlistedFilesAreRefused() async throws {
        let scratch = try TemporaryDirectory(prefix: "stratus-hostile-export")
        defer { scratch.remove() }
        let export = try await Self.makeExport(in: scratch)

        let escaping = try Self.copy(export, "escaping", in: scratch)
        try Self.editManifest(escaping) { $0.files.append(ExportManifest.File(name: "../outside.jsonl", size: 0, sha256: String(repeating: "0", count: 64))) }
        try await Self.expectRefused(escaping, into: scratch.path("a"), "not part of a Stratus export")

        let linked = try Self.copy(export, "linked", in: scratch)
        let records = linked.appendingPathComponent("records.jsonl")
        try FileManager.default.removeItem(at: records)
        try FileManager.default.createSymbolicLink(at: records, withDestinationURL: export.appendingPathComponent("records.jsonl"))
        try await Self.expectRefused(linked, into: scratch.path("b"), "not a regular file")

        let extra = try Self.copy(export, "extra", in: scratch)
        try Data("#!/bin/sh\n".utf8).write(to: extra.appendingPathComponent("run.sh"))
        try await Self.expectRefused(extra, into: scratch.path("c"), "does not list")

        let extraAsset = try Self.copy(export, "extra-asset", in: scratch)
        try Data("x".utf8).write(to: extraAsset.appendingPathComponent("assets/" + String(repeating: "a", count: 40)))
        try await Self.expectRefused(extraAsset, into: scratch.path("d"), "does not list")
    }

    @Test func damagedOrNewerExportsAreRefusedAndNothingIsImported() async throws {
        let scratch = try TemporaryDirectory(prefix: "stratus-hostile-export")
        defer { scratch.remove() }
        let export = try await Self.makeExport(in: scratch)
        let data = scratch.path("data")

        // One byte changed, the size kept: caught by the hash, after records were written — rolled back.
        let flipped = try Self.copy(export, "flipped", in: scratch)
        let records = flipped.appendingPathComponent("records.jsonl")
        let text = try String(contentsOf: records, encoding: .utf8)
        try Data(text.replacingOccurrences(of: #""n2""#, with: #""n3""#).utf8).write(to: records)
        try await Self.expectRefused(flipped, into: data, "does not match the manifest")

        let newer = try Self.copy(export, "newer", in: scratch)
        try Self.editManifest(newer) { $0.version = 9 }
        try await Self.expectRefused(newer, into: data, "version 9")

        let unfinished = try Self.copy(export, "unfinished", in: scratch)
        try FileManager.default.removeItem(at: unfinished.appendingPathComponent("stratus-export.json"))
        try await Self.expectRefused(unfinished, into: data, "has no stratus-export.json")

        let asset = try Self.copy(export, "asset", in: scratch)
        let assetName = try #require(try FileManager.default.contentsOfDirectory(atPath: asset.appendingPathComponent("assets").path).first)
        try Self.reseal(asset, "assets/" + assetName, replacing: "photo", with: "other")
        try await Self.expectRefused(asset, into: data, "not its key")

        // The same store takes the intact export afterwards: nothing of the refusals stayed.
        let imported = try await WebServeProcess.stratus(["import", export.path], dataDirectory: data)
        #expect(imported.status == 0, "\(imported.errorOutput)")
        let again = try await WebServeProcess.stratus(["import", export.path], dataDirectory: data)
        #expect(again.status != 0 && again.errorOutput.contains("already exists"), "\(again.errorOutput)")
    }

    @Test func valuesThatBreakTheStoresRulesAreRefused() async throws {
        let scratch = try TemporaryDirectory(prefix: "stratus-hostile-export")
        defer { scratch.remove() }
        let export = try await Self.makeExport(in: scratch)
        let cases: [(file: String, old: String, new: String, reason: String)] = [
            ("records.jsonl", #""changeSequence":2"#, #""changeSequence":999"#, "increasing change order"),
            (
                "records.jsonl", #""recordName":"n2","recordType":"Note","zone":1"#, #""recordName":"n2","recordType":"Note","zone":7"#,
                "which zones.jsonl does not list"
            ),
            ("records.jsonl", #""recordName":"n2""#, #""recordName":"n1""#, "appears twice"),
            ("zones.jsonl", #""scope":"private""#, #""scope":"shared""#, "shared database"),
            ("zones.jsonl", #""zoneName":"Notes""#, #""zoneName":"_system""#, "zone name"),
        ]
        for (index, spoil) in cases.enumerated() {
            let spoiled = try Self.copy(export, "spoiled-\(index)", in: scratch)
            try Self.reseal(spoiled, spoil.file, replacing: spoil.old, with: spoil.new)
            try await Self.expectRefused(spoiled, into: scratch.path("data-\(index)"), spoil.reason)
        }
        let missingAsset = try Self.copy(export, "missing-asset", in: scratch)
        let assetName = try #require(try FileManager.default.contentsOfDirectory(atPath: missingAsset.appendingPathComponent("assets").path).first)
        try FileManager.default.removeItem(at: missingAsset.appendingPathComponent("assets/" + assetName))
        try Self.editManifest(missingAsset) { $0.files.removeAll { $0.name.hasPrefix("assets/") } }
        try await Self.expectRefused(missingAsset, into: scratch.path("data-asset"), "the export does not carry")
    }
}
