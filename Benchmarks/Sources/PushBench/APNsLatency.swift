import BenchSupport
import Foundation
import StratusServer
import StratusServerAPNs
import StratusTesting
import StratusWire

/// Commit → fake-APNs receipt: one save at a time, each waited for at the fake APNs server (HTTP/2
/// over TLS on loopback, the test server of the suite), so the figure sits next to the courier's.
enum APNsLatency {
    /// Registers a device token, runs `count` saves and returns each one's save-sent → APNs-received time, in nanoseconds.
    ///
    /// The send time and the fake's receipt time are both the wall clock of this machine.
    static func run(
        fake: FakeAPNsServer, server: CloudKitService, store: any RecordStore, client: LoopbackHTTPClient, container: String, count: Int
    ) async throws -> [Double] {
        try await fake.storeCredentials(in: store, container: container)
        server.startAPNsDelivery(transport: try CurlAPNsTransport(configuration: .init(trustedCAFile: fake.caFile)))
        let token = String(repeating: "be", count: 32)
        let register = #"{"apnsEnvironment":"development","apnsToken":"\#(token)"}"#
        let registered = try client.send("POST", "/device/1/\(container)/development/tokens/register", body: Array(register.utf8))
        guard registered.status == 200 else { throw BenchFailure("tokens/register answered \(registered.status): \(registered.text)") }
        let path = "/database/1/\(container)/development/private/records/modify"
        var latencies: [Double] = []
        for index in 0..<count {
            let record = Record(recordName: "apns\(index)", recordType: "Note", fields: ["v": .int64(Int64(index))])
            let body = [UInt8](try WireCoding.encode(RecordsModify.Request(operations: [.create(record)])))
            let sent = UInt64(Date().timeIntervalSince1970 * 1e9)
            let reply = try client.send("POST", path, body: body)
            guard reply.status == 200 else { throw BenchFailure("save answered \(reply.status): \(reply.text)") }
            guard let push = try await fake.pushes(atLeast: index + 1, since: index, timeout: .seconds(10)).first else {
                throw BenchFailure("the fake APNs server received no push for save \(index)")
            }
            guard push.status == 200, push.problems.isEmpty, push.token == token else {
                throw BenchFailure("push \(index) was answered \(push.status): \(push.problems)")
            }
            latencies.append(Double(push.received_ns &- sent))
        }
        return latencies
    }
}
