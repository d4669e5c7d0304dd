public import Foundation

/// The certificate chain and private key an ``HTTPServer`` serves HTTPS with, read from PEM files.
///
/// The bytes are kept in memory for the life of the daemon that uses them; libmicrohttpd hands them
/// to GnuTLS, which checks at start that the key matches the certificate.
///
/// ```swift
/// var configuration = HTTPServerConfiguration()
/// configuration.tls = try TLSIdentity(
///     certificateFile: URL(fileURLWithPath: "/etc/stratus/fullchain.pem"),
///     keyFile: URL(fileURLWithPath: "/etc/stratus/privkey.pem"))
/// ```
public struct TLSIdentity: Sendable, Equatable {
    /// The certificate chain, PEM, leaf first.
    public let certificatePEM: Data
    /// The private key, PEM (unencrypted).
    public let keyPEM: Data
    /// Where the certificate was read from, for messages; `nil` when given as bytes.
    public let certificateFile: URL?
    /// Where the key was read from, for messages; `nil` when given as bytes.
    public let keyFile: URL?

    /// An identity from PEM bytes.
    ///
    /// - Throws: ``HTTPServerError`` with code `invalidTLSIdentity` when either is not PEM of the right kind.
    public init(certificatePEM: Data, keyPEM: Data) throws(HTTPServerError) {
        try self.init(certificatePEM: certificatePEM, keyPEM: keyPEM, certificateFile: nil, keyFile: nil)
    }

    /// Reads the certificate chain and key from PEM files.
    ///
    /// - Throws: ``HTTPServerError`` with code `invalidTLSIdentity` naming the file that cannot be read
    ///   or is not PEM of the right kind.
    public init(certificateFile: URL, keyFile: URL) throws(HTTPServerError) {
        let certificate = try Self.read(certificateFile, what: "certificate")
        let key = try Self.read(keyFile, what: "private key")
        try self.init(certificatePEM: certificate, keyPEM: key, certificateFile: certificateFile, keyFile: keyFile)
    }

    private init(certificatePEM: Data, keyPEM: Data, certificateFile: URL?, keyFile: URL?) throws(HTTPServerError) {
        let certificateName = certificateFile?.path ?? "the certificate"
        let keyName = keyFile?.path ?? "the private key"
        guard Self.contains(certificatePEM, "-----BEGIN CERTIFICATE-----") else {
            throw HTTPServerError(code: .invalidTLSIdentity, message: "\(certificateName) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        guard Self.contains(keyPEM, "PRIVATE KEY-----") else {
            throw HTTPServerError(code: .invalidTLSIdentity, message: "\(keyName) holds no PEM private key (-----BEGIN … PRIVATE KEY-----)")
        }
        guard !Self.contains(keyPEM, "ENCRYPTED") else {
            throw HTTPServerError(code: .invalidTLSIdentity, message: "\(keyName) is encrypted; give the server an unencrypted key readable only by its user")
        }
        self.certificatePEM = certificatePEM
        self.keyPEM = keyPEM
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }

    /// The most bytes a PEM file may have (a chain of a few certificates is a few kilobytes).
    static let maximumFileSize = 1 << 20

    private static func read(_ url: URL, what: String) throws(HTTPServerError) -> Data {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw HTTPServerError(code: .invalidTLSIdentity, message: "cannot read the TLS \(what) \(url.path): \(error.localizedDescription)")
        }
        guard data.count <= maximumFileSize else {
            throw HTTPServerError(
                code: .invalidTLSIdentity, message: "the TLS \(what) \(url.path) is \(data.count) bytes, over the \(maximumFileSize) a PEM file may have")
        }
        return data
    }

    private static func contains(_ data: Data, _ marker: String) -> Bool {
        data.range(of: Data(marker.utf8)) != nil
    }
}
