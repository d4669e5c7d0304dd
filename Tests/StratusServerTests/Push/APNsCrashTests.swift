import Foundation
import StratusTesting
import StratusWire
import Testing

/// A push committed but not yet delivered survives `kill -9` of `stratus serve`: the delivery
/// queue is in the store, and the next life sends it.
@Suite(.enabled(if: FakeAPNsServer.isEnabled, "run Scripts/fake-apns.sh install (make test does)"))
struct APNsCrashTests {
    static let container = "iCloud.com.example.APNsCrash"

    @Test func queuedPushSurvivesSIGKILLAndIsDeliveredByTheNextLife() async throws {
        let fake = try await FakeAPNsServer.start(topic: "com.example.Crash")
        defer { fake.stop() }
        let directory = try TemporaryDirectory(prefix: "stratus-apns-crash")
        defer { directory.remove() }
        let data = directory.path("data")
        _ = try await StratusChildProcess.run(["container", "create", Self.container, "--data-dir", data])
        _ = try await StratusChildProcess.run([
            "push", "apns", "set", Self.container, "--key-file", fake.keyFile, "--key-id", fake.keyID, "--team-id", fake.teamID,
            "--topic", fake.topic, "--data-dir", data,
        ])

        // First life: APNs cannot be reached (nothing listens on port 1), so the push waits in the queue.
        let first = try await StratusChildProcess.serve(
            dataDirectory: data, logPath: directory.path("first.log"), arguments: ["--apns-endpoint", "https://127.0.0.1:1", "--apns-ca-file", fake.caFile]
        )
        defer { first.killHard() }
        var client = LoopbackCloudKitClient(port: first.port, container: Self.container)
        let subscription =
            #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"z","subscriptionType":"zone","zoneID":{"zoneName":"_defaultZone"}}}]}"#
        #expect(try await client.post("subscriptions/modify", subscription).status == 200)
        let token = String(repeating: "c3", count: 32)
        let register = #"{"apnsEnvironment":"production","apnsToken":"\#(token)"}"#
        #expect(try await client.post(path: "/device/1/\(Self.container)/development/tokens/register", register, operation: "register").status == 200)
        let save = #"{"operations":[{"operationType":"create","record":{"recordType":"Note","recordName":"n1"}}]}"#
        #expect(try await client.post("records/modify", save).status == 200)
        // Wait until the first attempt failed and was put back for a retry, then kill.
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let metrics = try await RawHTTPConnection.exchange(
                port: first.port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", timeout: 10
            )
            let text = String(decoding: metrics.body, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix(#"stratus_apns_pushes_total{outcome="retried"}"#) }),
                !line.hasSuffix(" 0")
            {
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        first.killHard()
        #expect(try await fake.pushes().isEmpty)

        // Second life, with APNs reachable: the queued push goes out.
        let second = try await StratusChildProcess.serve(
            dataDirectory: data, logPath: directory.path("second.log"), arguments: ["--apns-endpoint", fake.endpoint, "--apns-ca-file", fake.caFile]
        )
        defer { second.killHard() }
        client.port = second.port
        let pushes = try await fake.pushes(atLeast: 1, timeout: .seconds(30))
        #expect(pushes.map(\.token) == [token])
        #expect(pushes.first?.problems == [])
        #expect(pushes.first?.notification?.ck.fet?.sid == "z")
        await second.stop()
    }
}
