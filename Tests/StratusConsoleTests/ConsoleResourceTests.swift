import Foundation
@testable import StratusConsole
import StratusTesting
import Testing

/// The pages are files in the repository, embedded in the binary as generated Swift source.
@Suite struct ConsoleResourceTests {
    static let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/StratusConsole/Resources")

    @Test func theEmbeddedResourcesAreTheFilesInTheRepository() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.resources.path).filter { !$0.hasPrefix(".") }
        #expect(Set(names) == Set(ConsoleResources.all.keys), "run: swift Scripts/embed-console-resources.swift .")
        for name in names {
            let file = try Data(contentsOf: Self.resources.appendingPathComponent(name))
            #expect(ConsoleResources.all[name]?.body == file, "\(name) changed since it was embedded: run swift Scripts/embed-console-resources.swift .")
        }
    }

    @Test func theConsoleIsServedFromTheBinaryAndNothingElseIs() async throws {
        let server = try await ConsoleTestServer.start()
        defer { Task { await server.stop() } }
        let index = try await server.send("GET", "/console")
        #expect(index.status == 200)
        #expect(index.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(index.text.contains("<title>Stratus Console</title>"))
        let script = try await server.send("GET", "/console/app.js")
        #expect(script.header("Content-Type")?.hasPrefix("text/javascript") == true)
        for path in ["/console/nothing.js", "/console/../Package.swift", "/console/%2e%2e/Package.swift", "/console/Resources/app.js"] {
            #expect(try await server.send("GET", path).status == 404, "\(path)")
        }
    }
}
