import Foundation
import StratusTesting

/// The certificate and key files a TLS server was started with, which a test replaces the way a
/// renewal does before it sends SIGHUP.
struct ServedCertificate {
    let certificate: URL
    let key: URL

    init(in directory: URL) {
        certificate = directory.appendingPathComponent("served.crt")
        key = directory.appendingPathComponent("served.key")
    }

    /// Copies `files` over the served pair.
    func install(_ files: TestCertificate.Files) throws {
        for (from, to) in [(files.certificate, certificate), (files.key, key)] {
            try? FileManager.default.removeItem(at: to)
            try FileManager.default.copyItem(at: from, to: to)
        }
    }
}
