// What AuthBench measures against (main.swift says what it runs): its three servers with their
// credentials and seeded record, and the modes of each endpoint.
import BenchSupport
import Foundation
import StratusCrypto
import StratusServer
import StratusServerCrypto

/// The servers every mode runs against, and the credentials the secured ones accept.
struct Fixture {
    /// Open mode: no authentication.
    var open: AuthBenchServer
    /// Requires authentication; reuses the key record while the credential generation is unchanged.
    var secured: AuthBenchServer
    /// Requires authentication and reads the key record on every signed request.
    var everyRequest: AuthBenchServer
    var apiToken: String
    var webAuthToken: String
    var signer: Signer
}

/// Makes server-to-server signatures with the key registered on both secured servers.
struct Signer: Sendable {
    let keyID: String
    let key: P256PrivateKey

    /// `count` distinct signatures of one request (the server accepts each signature once, issue 14
    /// finding 14), all with the current date.
    func signatures(body: [UInt8], path: String, count: Int) -> [[(String, String)]] {
        let date = Date()
        return (0..<count).compactMap { _ in
            try? ServerToServerSignature.headers(keyID: keyID, date: date, body: Data(body), path: path, key: key)
                .sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
    }
}

/// Starts the three servers and makes a user, an API token, a web auth token and a server key,
/// the key under the same ID on both secured servers so the same signatures verify on either.
func startServers() async throws -> Fixture {
    let open = try await AuthBenchServer(authenticated: false)
    let secured = try await AuthBenchServer(authenticated: true)
    let everyRequest = try await AuthBenchServer(authenticated: true, keyGeneration: false)
    guard let admin = secured.administration else { throw BenchFailure("no account administration") }
    let user = try await admin.createUser(email: "bench@example.com", password: "bench-password-1", nameComponents: .init(), discoverable: false)
    let (apiToken, _) = try await admin.createAPIToken(container: container, environment: .development, name: "bench")
    let webAuthToken = try await admin.webAuthToken(for: user.userRecordName, container: container, keepSignedIn: true)
    let key = try P256PrivateKey()
    let keyID = try await admin.addServerKey(container: container, environment: .development, name: "bench", publicKeyPEM: key.publicKey.pemRepresentation)
        .keyID
    let keyPEM = key.publicKey.pemRepresentation
    try await everyRequest.store.writeAccounts { tx in
        try tx.insertServerKey(
            ServerKeyRecord(keyID: keyID, container: container, environment: .development, name: "bench", publicKeyPEM: keyPEM, createdAt: 0))
    }
    return Fixture(
        open: open, secured: secured, everyRequest: everyRequest, apiToken: apiToken, webAuthToken: webAuthToken,
        signer: Signer(keyID: keyID, key: key))
}

/// A query string of `items`, each value percent-encoded.
func query(_ items: [(String, String)]) -> String {
    let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    return items.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: unreserved) ?? $0.1)" }.joined(separator: "&")
}

/// Writes the record every mode looks up into each server's public database.
func seed(_ fixture: Fixture) throws {
    let create = Array(
        #"{"operations":[{"operationType":"forceReplace","record":{"recordName":"bench","recordType":"Note","fields":{"title":{"value":"auth bench","type":"STRING"}}}}]}"#
            .utf8)
    let seedWith = query([("ckAPIToken", fixture.apiToken), ("ckWebAuthToken", fixture.webAuthToken)])
    let signer = fixture.signer
    for (port, target, headers) in [
        (fixture.open.port, modifyPath, [(String, String)]()), (fixture.secured.port, modifyPath + "?" + seedWith, []),
        (
            fixture.everyRequest.port, modifyPath,
            try ServerToServerSignature.headers(keyID: signer.keyID, date: Date(), body: Data(create), path: modifyPath, key: signer.key)
                .map { ($0.key, $0.value) }
        ),
    ] {
        let reply = try LoopbackHTTPClient(port: port).send("POST", target, body: create, headers: headers)
        guard reply.status == 200, !reply.text.contains("serverErrorCode") else { throw BenchFailure("seeding failed: \(reply.status) \(reply.text)") }
    }
}

/// The modes of two endpoints: the cheapest read (the worst case for the relative cost of a
/// credential) and a one-record write. An API token alone cannot write, so the write has no
/// API-token row. Signatures are made ahead of each timed run, as a client would sign each
/// request: enough for a client thread at 20,000 requests/s for the run (or `--requests` of them).
func benchEndpoints(_ fixture: Fixture) -> [(name: String, modes: [Mode])] {
    let signaturesPerClient = requestsPerClient > 0 ? requestsPerClient + 1 : max(1_000, seconds * 20_000)
    let signer = fixture.signer
    let (open, secured) = (fixture.open.port, fixture.secured.port)
    let apiQuery = "?" + query([("ckAPIToken", fixture.apiToken)])
    let userQuery = "?" + query([("ckAPIToken", fixture.apiToken), ("ckWebAuthToken", fixture.webAuthToken)])
    let rotatedQuery = modifyPath + apiQuery + "&ckWebAuthToken="
    return [
        (
            "records/lookup (public, one record)",
            [
                Mode(name: "open (no auth)", port: open, target: path, body: body, headers: { _ in [] }),
                Mode(name: "API token", port: secured, target: path + apiQuery, body: body, headers: { _ in [] }),
                Mode(name: "web auth token", port: secured, target: path + userQuery, body: body, headers: { _ in [] }),
                Mode(
                    name: "server-to-server", port: secured, target: path, body: body,
                    headers: { _ in signer.signatures(body: body, path: path, count: signaturesPerClient) }, singleUse: true),
                Mode(
                    name: "server-to-server, key read every request", port: fixture.everyRequest.port, target: path, body: body,
                    headers: { _ in signer.signatures(body: body, path: path, count: signaturesPerClient) }, singleUse: true),
            ]
        ),
        (
            "records/modify (public, forceReplace of one record)",
            [
                Mode(name: "open (no auth)", port: open, target: modifyPath, body: modifyBody, headers: { _ in [] }),
                Mode(name: "web auth token", port: secured, target: modifyPath + userQuery, body: modifyBody, headers: { _ in [] }),
                Mode(
                    name: "web auth token, rotated", port: secured, target: modifyPath + userQuery, body: modifyBody, headers: { _ in [] },
                    rotate: { token in rotatedQuery + percentEncoded(base64: token) }),
                Mode(
                    name: "server-to-server", port: secured, target: modifyPath, body: modifyBody,
                    headers: { _ in signer.signatures(body: modifyBody, path: modifyPath, count: signaturesPerClient) }, singleUse: true),
            ]
        ),
    ]
}

/// Sends each mode's request once, untimed.
func warmUp(_ endpoints: [(name: String, modes: [Mode])], _ signer: Signer) throws {
    for (_, modes) in endpoints {
        for mode in modes {
            let warmUp = mode.singleUse ? signer.signatures(body: mode.body, path: mode.target, count: 1) : mode.headers(0)
            _ = try LoopbackHTTPClient(port: mode.port).send("POST", mode.target, body: mode.body, headers: warmUp.first ?? [])
        }
    }
}
