public import Foundation
import StratusLogging

/// A verification link to be delivered to the person who signed up with an address.
public struct VerificationMessage: Sendable, Hashable, Codable {
    /// The address to send it to (normalized).
    public var emailAddress: String
    /// The link that finishes the sign-up: `<base>/verify?ckAPIToken=…&ticket=…`.
    public var link: String
    /// When the link stops working, in milliseconds since 1970.
    public var expiresAt: Int64
    /// The container the person was signing up for.
    public var container: String

    /// Creates a message.
    public init(emailAddress: String, link: String, expiresAt: Int64, container: String) {
        self.emailAddress = emailAddress
        self.link = link
        self.expiresAt = expiresAt
        self.container = container
    }

    /// A subject line for the e-mail.
    public var subject: String { "Finish creating your account for \(container)" }
}

/// How the server hands verification links to the operator's mail system.
///
/// The server sends no e-mail itself. Whoever runs it delivers each link to its address —
/// by reading the log, by a script that follows the outbox file and mails each line, or, for
/// library users, with a handler of their own (design note 0006, "Sign-up").
///
/// ```swift
/// configuration.authentication.verificationDelivery = .outbox(URL(fileURLWithPath: "/var/lib/stratus/outbox.jsonl"))
/// ```
public enum VerificationDelivery: Sendable {
    /// Logs each link at `notice` (`verification link for <address>: <link>`).
    case log
    /// Appends each message as one JSON line (``VerificationMessage``'s keys and `subject`) to this file,
    /// created with mode 0600 if it does not exist.
    case outbox(URL)
    /// Calls the handler with each message.
    case handler(@Sendable (VerificationMessage) async throws -> Void)

    /// Delivers `message`.
    ///
    /// - Throws: What writing the outbox or the handler throws.
    func deliver(_ message: VerificationMessage, logger: Logger) async throws {
        switch self {
        case .log:
            logger.notice(
                "verification link for \(message.emailAddress): \(message.link)", metadata: ["verification-for": message.emailAddress]
            )
        case .outbox(let url):
            try Self.append(message, to: url)
        case .handler(let handler):
            try await handler(message)
        }
    }

    private struct Line: Encodable {
        var emailAddress: String
        var subject: String
        var link: String
        var expiresAt: Int64
        var container: String
    }

    private static func append(_ message: VerificationMessage, to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let line = Line(
            emailAddress: message.emailAddress, subject: message.subject, link: message.link, expiresAt: message.expiresAt,
            container: message.container
        )
        var data = try encoder.encode(line)
        data.append(0x0A)
        let descriptor = open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw AccountError(.deliveryFailed, "cannot open the verification outbox \(url.path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == data.count else {
            throw AccountError(.deliveryFailed, "cannot append to the verification outbox \(url.path): \(String(cString: strerror(errno)))")
        }
    }
}
