import StratusServer
import StratusServerAPNs

/// Transports for tests that need one the fake's CA is not trusted by.
enum CurlAPNsTransportFactory {
    /// The system's CAs only.
    static func withoutTestCA() throws -> CurlAPNsTransport {
        try CurlAPNsTransport(configuration: .init())
    }
}
