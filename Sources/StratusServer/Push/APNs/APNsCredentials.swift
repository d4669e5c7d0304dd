public import StratusWire
import StratusCrypto

/// A container environment's APNs token-based credentials: the `.p8` signing key and who it belongs to.
///
/// The key comes from the Apple Developer account (Certificates, Identifiers & Profiles → Keys,
/// with the Apple Push Notifications service enabled): a PKCS #8 P-256 private key in a file named
/// `AuthKey_<KEYID>.p8`. The server keeps it in its store (readable by the server's user only) and
/// never shows it: ``description`` names the key by its ID and public-key fingerprint.
///
/// ```swift
/// let credentials = try APNsCredentials.validated(
///     container: "iCloud.com.example.Notes", environment: .production, keyID: "ABC123DEFG", teamID: "DEF123GHIJ",
///     topic: "com.example.Notes", privateKeyPEM: String(contentsOfFile: "AuthKey_ABC123DEFG.p8", encoding: .utf8), now: now)
/// ```
public struct APNsCredentials: Hashable, Sendable, CustomStringConvertible {
    /// The container.
    public var container: String
    /// The CloudKit environment these credentials serve.
    public var environment: Environment
    /// The key's 10-character identifier (`kid` of the provider token).
    public var keyID: String
    /// The 10-character Team ID of the developer account (`iss` of the provider token).
    public var teamID: String
    /// The app's bundle ID (`apns-topic`).
    public var topic: String
    /// The private key, PKCS #8 PEM.
    public var privateKeyPEM: String
    /// When they were set, in milliseconds since 1970.
    public var updatedAt: Int64

    /// Creates credentials without checking them (a back end reading its rows); use ``validated(container:environment:keyID:teamID:topic:privateKeyPEM:now:)`` for input.
    public init(
        container: String, environment: Environment, keyID: String, teamID: String, topic: String, privateKeyPEM: String, updatedAt: Int64
    ) {
        self.container = container
        self.environment = environment
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.privateKeyPEM = privateKeyPEM
        self.updatedAt = updatedAt
    }

    /// Checks operator input and makes credentials of it.
    ///
    /// - Throws: ``APNsCredentialsError`` naming the field: a key or team ID that is not 10
    ///   letters and digits, a topic that is not a bundle ID, or a key that is not a P-256 private
    ///   key (the message never quotes the file).
    public static func validated(
        container: String, environment: Environment, keyID: String, teamID: String, topic: String, privateKeyPEM: String, now: Int64
    ) throws(APNsCredentialsError) -> APNsCredentials {
        for (name, value) in [("key ID", keyID), ("team ID", teamID)] {
            guard value.count == 10, value.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else {
                throw APNsCredentialsError("the \(name) must be the 10 capital letters and digits Apple shows; got '\(value.prefix(40))'")
            }
        }
        let topicCharacters = topic.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) }
        guard !topic.isEmpty, topic.count <= 255, topicCharacters, !topic.hasPrefix("."), !topic.hasSuffix(".") else {
            throw APNsCredentialsError("the topic must be the app's bundle ID, such as com.example.Notes; got '\(topic.prefix(80))'")
        }
        let key: P256PrivateKey
        do {
            key = try P256PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw APNsCredentialsError("the key file is not an APNs signing key (a PKCS #8 P-256 private key, AuthKey_\(keyID).p8)")
        }
        return APNsCredentials(
            container: container, environment: environment, keyID: keyID, teamID: teamID, topic: topic,
            privateKeyPEM: key.pemRepresentation, updatedAt: now
        )
    }

    /// The public key's fingerprint, to tell keys apart without showing one (`sha256:` and 16 hex digits).
    public var publicKeyFingerprint: String {
        guard let key = try? P256PrivateKey(pemRepresentation: privateKeyPEM) else { return "unreadable" }
        let text = key.publicKey.description
        return text.firstRange(of: "sha256:").map { String(text[$0.lowerBound...].dropLast()) } ?? "unknown"
    }

    /// Names the credentials without the key.
    public var description: String {
        "APNsCredentials(\(container) \(environment.rawValue), key \(keyID), team \(teamID), topic \(topic), key <redacted>)"
    }
}

/// APNs credentials an operator gave that cannot be used.
public struct APNsCredentialsError: Error, Hashable, CustomStringConvertible {
    /// What is wrong, naming the field.
    public var message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

extension APNsCredentials: CustomReflectable {
    /// A mirror without the key, so `dump` and debuggers do not show it either.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "container": container, "environment": environment.rawValue, "keyID": keyID, "teamID": teamID, "topic": topic,
                "privateKeyPEM": "<redacted>",
            ]
        )
    }
}
