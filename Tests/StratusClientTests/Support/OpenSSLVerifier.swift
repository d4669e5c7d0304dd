import Foundation
import StratusTesting

/// Verifies ECDSA signatures with the system `openssl` tool, in a scratch directory.
enum OpenSSLVerifier {
    static let executable = "/usr/bin/openssl"
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    /// Runs `openssl dgst -sha256 -verify pub.pem -signature sig.der msg`; returns its exit status and output.
    static func verify(message: Data, derSignature: Data, publicKeyPEM: String) throws -> (status: Int32, output: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(publicKeyPEM.utf8).write(to: directory.appendingPathComponent("pub.pem"))
        try derSignature.write(to: directory.appendingPathComponent("sig.der"))
        try message.write(to: directory.appendingPathComponent("msg"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        // NB: absolute paths rather than `currentDirectoryURL`, which was seen crashing
        // `Process.run()` on Linux while other tests ran.
        process.arguments = [
            "dgst", "-sha256", "-verify", directory.appendingPathComponent("pub.pem").path,
            "-signature", directory.appendingPathComponent("sig.der").path, directory.appendingPathComponent("msg").path,
        ]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try ChildProcessLauncher.launch(process)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
