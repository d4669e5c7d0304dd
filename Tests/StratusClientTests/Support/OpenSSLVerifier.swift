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
        let result = try SpawnedCommand.runBlocking(
            executable,
            [
                "dgst", "-sha256", "-verify", directory.appendingPathComponent("pub.pem").path,
                "-signature", directory.appendingPathComponent("sig.der").path, directory.appendingPathComponent("msg").path,
            ])
        return (result.status, result.output + result.errorOutput)
    }
}
