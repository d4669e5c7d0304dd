public import StratusServer
import Foundation
import StratusServerAPNs
import StratusWire

extension TestCloudKitServer {
    /// Gives the default container (both environments) the fake's credentials and starts APNs
    /// delivery through libcurl to it; set `push.apns.endpoint` to ``FakeAPNsServer/endpoint`` in
    /// the configuration when starting the server.
    ///
    /// ```swift
    /// let fake = try await FakeAPNsServer.start()
    /// let server = try await TestCloudKitServer.start { $0.push.apns.endpoint = fake.endpoint }
    /// try await server.deliverAPNs(to: fake)
    /// ```
    public func deliverAPNs(to fake: FakeAPNsServer, container: String = container) async throws {
        try await fake.storeCredentials(in: store, container: container)
        service.startAPNsDelivery(transport: try CurlAPNsTransport(configuration: .init(trustedCAFile: fake.caFile)))
    }
}

extension FakeAPNsServer {
    /// Writes the fake's credentials (its key, key ID, team ID and topic) for `container` in both environments.
    public func storeCredentials(in store: any RecordStore, container: String) async throws {
        let pem = try String(contentsOfFile: keyFile, encoding: .utf8)
        for environment in [Environment.development, .production] {
            let credentials = try APNsCredentials.validated(
                container: container, environment: environment, keyID: keyID, teamID: teamID, topic: topic, privateKeyPEM: pem, now: 0
            )
            try await store.write { tx in try tx.putAPNsCredentials(credentials) }
        }
    }
}
