import Foundation
import StratusTesting
import Testing

/// `stratus demo` as a user runs it: a child process that must exit 0 with every step held.
@Suite struct DemoCommandTests {
    @Test func demoHoldsEveryStep() async throws {
        let stratus = try SpawnedCommand.builtExecutable("stratus")
        let result = try await SpawnedCommand.run(stratus, ["demo"], environment: ProcessInfo.processInfo.environment)
        #expect(result.status == 0, "stratus demo exited \(result.status):\n\(result.output)\n\(result.errorOutput)")
        #expect(result.output.contains("Every step held"))
        #expect(result.output.components(separatedBy: "✓").count == 5)
        #expect(!result.output.contains("✗"))
    }
}
