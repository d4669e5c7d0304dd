import Foundation
import StratusLogging
import StratusServer
import StratusWire

/// `stratus push apns set|list|remove`: the APNs credentials of each container (design note 0013).
enum PushCommand {
    static let usage = """
        stratus push apns set <container> --key-file AuthKey_KEYID.p8 --key-id KEYID --team-id TEAMID --topic com.example.App
                              [--environment development|production] [--data-dir ./.stratus] [--database postgres://…]
        stratus push apns list [--data-dir ./.stratus]
        stratus push apns remove <container> [--environment development|production]

        The key is the .p8 file made in the Apple Developer account (Certificates, Identifiers &
        Profiles → Keys, with Apple Push Notifications service); the key ID is in its name, the team
        ID at the top right of the account; the topic is the app's bundle ID. Without --environment
        the credentials serve both of the container's environments. The key is kept in the server's
        store (readable by the server's user only) and never shown again: `list` names it by key ID
        and public-key fingerprint. Running servers pick up a change within seconds.
        """

    static func run(_ options: Options) async throws {
        if options.flag("help") {
            print(usage)
            return
        }
        let unknown = options.unknownFlags(known: ["data-dir", "database", "key-file", "key-id", "team-id", "topic", "environment", "help"])
        guard unknown.isEmpty else { throw CLIError("unknown flag(s): \(unknown.map { "--" + $0 }.joined(separator: ", "))\n\n\(usage)") }
        let words = options.positional
        guard words.first == "apns", words.count >= 2 else { throw CLIError(usage) }
        let environments = try Self.environments(options)
        let store = try await DataDirectory(options).openStore(logger: .disabled)
        do {
            switch (words[1], words.count) {
            case ("set", 3): try await set(words[2], environments: environments, options: options, store: store)
            case ("list", 2): try await list(store: store)
            case ("remove", 3):
                let container = words[2]
                let removed = try await store.write { tx in
                    try tx.deleteAPNsCredentials(container: container, environment: environments.count == 1 ? environments[0] : nil)
                }
                print(removed > 0 ? "removed the APNs credentials of \(container) (\(removed))" : "\(container) has no APNs credentials")
            default: throw CLIError(usage)
            }
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    /// `--environment`, or both.
    private static func environments(_ options: Options) throws -> [Environment] {
        let name = options.string("environment", default: "")
        if name.isEmpty { return [.development, .production] }
        guard let environment = Environment(rawValue: name) else {
            throw CLIError("--environment must be development or production; got '\(name.prefix(40))'")
        }
        return [environment]
    }

    private static func set(_ container: String, environments: [Environment], options: Options, store: any RecordStore) async throws {
        let keyFile = options.string("key-file", default: "")
        guard !keyFile.isEmpty else { throw CLIError("--key-file is required: the AuthKey_KEYID.p8 file from the Apple Developer account") }
        let attributes = try? FileManager.default.attributesOfItem(atPath: keyFile)
        guard let size = (attributes?[.size] as? NSNumber)?.intValue, size <= 16 << 10,
            let data = FileManager.default.contents(atPath: keyFile)
        else {
            throw CLIError("the key file \(keyFile) cannot be read or is larger than an APNs key (16 KB)")
        }
        guard try await store.read({ try $0.containerExists(container) }) else {
            throw CLIError("container '\(container)' does not exist; create it with `stratus container create \(container)`")
        }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let credentials: [APNsCredentials]
        do {
            credentials = try environments.map { environment in
                try APNsCredentials.validated(
                    container: container, environment: environment, keyID: options.string("key-id", default: ""),
                    teamID: options.string("team-id", default: ""), topic: options.string("topic", default: ""),
                    privateKeyPEM: String(decoding: data, as: UTF8.self), now: now
                )
            }
        } catch let error as APNsCredentialsError {
            throw CLIError(error.message)
        }
        try await store.write { tx in
            for item in credentials { try tx.putAPNsCredentials(item) }
        }
        let first = credentials[0]
        print(
            "set the APNs credentials of \(container) (\(environments.map(\.rawValue).joined(separator: ", "))): key \(first.keyID) "
                + "(\(first.publicKeyFingerprint)), team \(first.teamID), topic \(first.topic); the key file is no longer needed by Stratus"
        )
    }

    private static func list(store: any RecordStore) async throws {
        let all = try await store.read { try $0.allAPNsCredentials() }
        guard !all.isEmpty else {
            print("no container has APNs credentials; add some with `stratus push apns set`")
            return
        }
        for item in all {
            let updated = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(item.updatedAt) / 1000))
            print(
                "\(item.container)\t\(item.environment.rawValue)\tkey \(item.keyID) (\(item.publicKeyFingerprint))\tteam \(item.teamID)"
                    + "\ttopic \(item.topic)\tset \(updated)"
            )
        }
    }
}
