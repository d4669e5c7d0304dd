import Foundation
import StratusCrypto
import StratusWire

/// Seals and opens the ticket of a verification link: what someone asked for when signing up.
///
/// A sign-up stores nothing. Its ticket — the e-mail address, names, "let people find me" and the
/// time — is JSON, base64url, then `.` and an HMAC-SHA256 of it under a key derived from the
/// server's token secret. Only whoever receives the link at that address can present it, so an
/// account made from a ticket has a verified address; an altered ticket fails the HMAC.
struct SignUpTicketCodec: Sendable {
    /// What a ticket holds.
    struct Ticket: Codable, Hashable, Sendable {
        /// The normalized e-mail address.
        var email: String
        var givenName: String?
        var familyName: String?
        var discoverable: Bool
        /// When the link was made, in milliseconds since 1970.
        var issuedAt: Int64

        /// The names as an account stores them.
        var nameComponents: NameComponents { NameComponents(givenName: givenName, familyName: familyName) }
    }

    /// The longest name kept from a sign-up form, in characters.
    static let maximumNameLength = 100

    private let key: Data

    init(secret: Data) {
        key = HMACSHA256.authenticationCode(for: Data("stratus sign-up verification v1".utf8), key: secret)
    }

    /// The sealed ticket, for a query string.
    func seal(_ ticket: Ticket) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let payload = try encoder.encode(ticket)
        return payload.base64URLEncodedString() + "." + HMACSHA256.authenticationCode(for: payload, key: key).base64URLEncodedString()
    }

    /// The ticket, or `nil` if the text was not sealed with this secret (or is malformed).
    func open(_ text: String) -> Ticket? {
        guard text.utf8.count <= 2048 else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let payload = Data(base64URLEncoded: String(parts[0])), let mac = Data(base64URLEncoded: String(parts[1])),
            HMACSHA256.isValidAuthenticationCode(mac, for: payload, key: key)
        else { return nil }
        // Sealed by this server but not decodable: a ticket of another Stratus version; the link is
        // then simply not valid ("sign up again"), which is all its holder needs to know.
        return try? JSONDecoder().decode(Ticket.self, from: payload)
    }
}
