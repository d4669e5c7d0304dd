import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Pushes reach only the users who may see the change.
@Suite struct PushIsolationTests {
    /// `tokens/create` and `tokens/register` as `user`; returns the courier URL's path and query.
    static func registerDevice(_ user: TestCloudKitServer.SignedInUser, on server: TestCloudKitServer) async throws -> String {
        let base = "/device/1/\(TestCloudKitServer.container)/development/tokens/"
        let created = try await server.exchange(base + "create", body: Data(#"{"apnsEnvironment":"development"}"#.utf8), query: user.query)
        let token = try #require(created.json["apnsToken"]?.stringValue, "\(created.text)")
        let url = try #require(created.json["webcourierURL"]?.stringValue.flatMap(URL.init(string:)))
        let registered = try await server.exchange(
            base + "register", body: Data(#"{"apnsEnvironment":"development","apnsToken":"\#(token)"}"#.utf8), query: user.query
        )
        #expect(registered.status == 200, "\(registered.text)")
        return url.path + (url.query.map { "?" + $0 } ?? "")
    }

    static func poll(_ target: String, on server: TestCloudKitServer) async throws -> Data {
        let reply = try await RawHTTPConnection.exchange(
            port: server.http.port, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(server.http.port)\r\nConnection: close\r\n\r\n", timeout: 20
        )
        #expect(reply.status == 200)
        return reply.body
    }

    @Test func anotherUsersChangesNeverReachYourDevice() async throws {
        try await withAuthServer(configure: { $0.push.pollTimeout = .seconds(1) }) { server in
            let a = try await server.signedInUser("a@example.com")
            let b = try await server.signedInUser("b@example.com")
            for user in [a, b] {
                _ = try await server.exchange(
                    "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Inbox"}}}]}"#, query: user.query)
                let subscribe =
                    #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"inbox","subscriptionType":"zone","zoneID":{"zoneName":"Inbox"}}}]}"#
                let reply = try await server.exchange("subscriptions/modify", subscribe, query: user.query)
                #expect(reply.status == 200, "\(reply.text)")
            }
            let aDevice = try await Self.registerDevice(a, on: server)
            let bDevice = try await Self.registerDevice(b, on: server)

            let save = #"{"zoneID":{"zoneName":"Inbox"},"operations":[{"operationType":"create","record":{"recordType":"Note","recordName":"n1"}}]}"#
            #expect(try await server.exchange("records/modify", save, query: a.query).status == 200)

            let aNotification = try await Self.poll(aDevice, on: server)
            #expect(String(decoding: aNotification, as: UTF8.self).contains("\"sid\":\"inbox\""), "\(String(decoding: aNotification, as: UTF8.self))")
            // B's device times out empty: A's change is not B's business.
            #expect(try await Self.poll(bDevice, on: server).isEmpty)
        }
    }
}
