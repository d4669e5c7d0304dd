import Foundation
import StratusTesting
import StratusWire
import Testing

/// Three real `stratus serve` processes on one PostgreSQL database (issue 9's "done when"):
/// concurrent writes through every node leave complete, ordered change feeds; a change tag
/// has one winner across nodes; a subscriber on one node hears writes made through another;
/// and a node killed with SIGKILL under load loses no acknowledged write.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"))
struct MultiProcessTests {
    static let container = "iCloud.com.example.MultiProcess"

    /// Three nodes on a fresh database, each with its own data directory.
    struct Cluster {
        let nodes: [StratusChildProcess]
        let clients: [LoopbackCloudKitClient]
        let directory: TemporaryDirectory
    }

    /// Creates a database and the container, starts three nodes on it, runs `body`, then stops
    /// the nodes and drops the database.
    static func withCluster(_ body: (Cluster) async throws -> Void) async throws {
        let database = try PostgresScratchDatabase.create()
        defer { database.drop() }
        let directory = try TemporaryDirectory(prefix: "stratus-multi")
        defer { directory.remove() }
        _ = try await StratusChildProcess.run(["container", "create", container, "--data-dir", directory.path("setup"), "--database", database.url])
        // One database and one asset directory for every node; a data directory each.
        let arguments = ["--database", database.url, "--assets-directory", directory.path("assets")]
        let nodes = try await withThrowingTaskGroup(of: (Int, StratusChildProcess).self) { group in
            for index in 0..<3 {
                group.addTask {
                    let node = try await StratusChildProcess.serve(
                        dataDirectory: directory.path("node\(index)"), logPath: directory.path("node\(index).log"), arguments: arguments
                    )
                    return (index, node)
                }
            }
            var started: [(Int, StratusChildProcess)] = []
            for try await node in group { started.append(node) }
            return started.sorted { $0.0 < $1.0 }.map(\.1)
        }
        let cluster = Cluster(
            nodes: nodes, clients: nodes.map { LoopbackCloudKitClient(port: $0.port, container: container) }, directory: directory
        )
        do {
            try await body(cluster)
        } catch {
            for node in nodes { node.killHard() }
            throw error
        }
        for node in nodes { await node.stop() }
    }

    @Test func writesThroughThreeProcessesKeepFeedsCompleteAndOrderedAndPushesCrossNodes() async throws {
        try await Self.withCluster { cluster in
            let (a, b, c) = (cluster.clients[0], cluster.clients[1], cluster.clients[2])
            try await a.createZone("Load")

            // A subscriber on C hears a save made through A.
            try await a.subscribe(PushDeliveryTests.noteSubscription("notes", firesOn: [.create]))
            let device = try await c.registerDevice()
            let parked = Task { try await device.poll(timeout: 15) }
            try await Task.sleep(for: .milliseconds(200))
            let saved = ContinuousClock.now
            _ = try await a.modify([WireJSON.create("ping")], zone: "Load")
            let notification = try #require(try await parked.value, "the poll on C timed out")
            #expect(notification.ck.qry?.rid == "ping")
            #expect(ContinuousClock.now - saved < .seconds(8), "woken by the relay, not by the poll's timeout")

            // Creates, updates and deletes through every node while C's feed is tailed.
            let stop = StopFlag()
            let tail = Task { try await Self.tail(c, zone: "Load", until: stop) }
            let expected = try await withThrowingTaskGroup(of: [String: String?].self) { group in
                for writer in 0..<9 {
                    group.addTask { try await Self.churn(writer: writer, clients: cluster.clients, zone: "Load") }
                }
                var expected = FeedState()
                expected.set("ping", tag: nil)
                for try await outcome in group {
                    for (name, tag) in outcome { expected.set(name, tag: tag) }
                }
                return expected
            }
            #expect(expected.tags.count == 9 * 4, "each writer leaves four of its six records")
            stop.raise()
            var tailed = try await tail.value
            tailed.set("ping", tag: nil)
            #expect(tailed == expected, "the feed tailed during the load differs from what the writers were told")

            // From scratch, through each node, in small pages: every record once, final state as acknowledged.
            for client in [a, b, c] {
                let feed = try await client.allChanges(zone: "Load", limit: 7).records
                #expect(Set(feed.map(\.recordName)).count == feed.count, "a record appears twice in the feed")
                var state = FeedState()
                state.apply(feed)
                state.set("ping", tag: nil)
                #expect(state == expected)
            }

            // Twenty clients spread over the three processes, one change tag: one winner.
            let created = try await b.modify([WireJSON.create("shared", fields: #"{"writer":{"value":-1}}"#)], zone: "Load")
            let tag = try #require(created.first?.asRecord?.recordChangeTag).rawValue
            let results = try await LoadScenarios.raceUpdates(of: "shared", tag: tag, zone: "Load", count: 20, clients: cluster.clients)
            #expect(results.count == 20)
            #expect(results.filter { $0.asRecord != nil }.count == 1)
            #expect(results.compactMap(\.asError).allSatisfy { $0.serverErrorCode == .conflict })
        }
    }

    @Test func killingOneNodeUnderLoadLosesNoAcknowledgedWrite() async throws {
        try await Self.withCluster { cluster in
            let zone = "Crash"
            let batchSize = 5
            try await cluster.clients[0].createZone(zone)
            let acknowledged = AcknowledgedNames()
            let stop = StopFlag()
            // Six writers, two per node; writers 1 and 4 go through node B.
            let load = Task {
                await withTaskGroup(of: Void.self) { group in
                    for writer in 0..<6 {
                        group.addTask {
                            await LoadScenarios.writeBatches(
                                writer: writer, client: cluster.clients[writer % 3], zone: zone, batchSize: batchSize,
                                acknowledged: acknowledged, stop: stop
                            )
                        }
                    }
                }
            }
            // Kill B once it has acknowledged some batches (longer on a busy machine), while every writer still runs.
            let throughB = { acknowledged.count(prefix: "w1-") + acknowledged.count(prefix: "w4-") }
            let deadline = ContinuousClock.now + .seconds(3)
            let hardDeadline = ContinuousClock.now + .seconds(20)
            while throughB() < 200, ContinuousClock.now < deadline || (throughB() < 20 && ContinuousClock.now < hardDeadline) {
                try await Task.sleep(for: .milliseconds(5))
            }
            cluster.nodes[1].killHard()
            #expect(cluster.nodes[1].wasKilled)
            // A and C keep taking writes after B is gone.
            let beforeKill = acknowledged.count
            try await Task.sleep(for: .milliseconds(500))
            stop.raise()
            await load.value
            #expect(throughB() >= 20, "node B should have acknowledged writes before the kill")
            #expect(acknowledged.count > beforeKill, "nodes A and C should keep acknowledging writes after B died")

            // Every acknowledged record is there, seen through A and C; the feeds agree and batches are whole.
            let survivors = acknowledged.names
            var feeds: [[String]] = []
            for client in [cluster.clients[0], cluster.clients[2]] {
                let names = try await client.allChanges(zone: zone, limit: 100).records.compactMap(\.recordName)
                #expect(Set(names).count == names.count, "a record appears twice in the change feed")
                let missing = survivors.subtracting(names)
                #expect(missing.isEmpty, "acknowledged records lost with node B: \(missing.prefix(10))")
                LoadScenarios.expectWholeBatches(names, batchSize: batchSize)
                feeds.append(names)
            }
            #expect(feeds[0] == feeds[1])
            let sample = Array(survivors.filter { $0.hasPrefix("w1-") }.prefix(50))
            let found = try await cluster.clients[2].lookup(sample, zone: zone)
            #expect(found.compactMap { $0.asRecord?.recordName } == sample)
        }
    }

    @Test func anAssetUploadedThroughOneNodeDownloadsFromTheOthers() async throws {
        try await Self.withCluster { cluster in
            let (a, b) = (cluster.clients[0], cluster.clients[1])
            let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
            let request = AssetsUpload.Request(tokens: [AssetsUpload.Token(recordName: "p1", recordType: "Photo", fieldName: "image")])
            let upload = try await a.send("assets/upload", String(decoding: try WireCoding.encode(request), as: UTF8.self), as: AssetsUpload.Response.self)
            let uploadURL = try #require(upload.tokens.first.flatMap { URL(string: $0.url) })
            #expect(uploadURL.port == Int(a.port), "the upload URL names the node that issued it")
            let posted = try await a.post(path: uploadURL.path, bytes: bytes, operation: "upload")
            #expect(posted.status == 200)
            let asset = try WireCoding.decode(AssetUploadReceipt.self, from: posted.body).singleFile
            let save = RecordsModify.Request(operations: [.create(Record(recordName: "p1", recordType: "Photo", fields: ["image": .asset(asset)]))])
            let saved = try await a.send("records/modify", String(decoding: try WireCoding.encode(save), as: UTF8.self), as: RecordsModify.Response.self)
            #expect(saved.records.first?.asRecord != nil, "\(saved.records)")

            // Fetched through B and C, the record links to B's and C's download URLs, which serve the bytes.
            for client in [b, cluster.clients[2]] {
                let fetched = try await client.lookup(["p1"])
                let link = try #require(fetched.first?.asRecord?.fields?["image"]?.assetValue?.downloadURL)
                let url = try #require(URL(string: link.replacingOccurrences(of: "${f}", with: "photo.bin")))
                #expect(url.port == Int(client.port))
                let reply = try await RawHTTPConnection.exchange(
                    port: client.port, "GET \(url.path) HTTP/1.1\r\nHost: 127.0.0.1:\(client.port)\r\nConnection: close\r\n\r\n", timeout: 30
                )
                #expect(reply.status == 200)
                #expect(reply.body == bytes, "node on port \(client.port) served \(reply.body.count) bytes")
            }
        }
    }

    @Test func serveAndMigrateRefuseADatabaseANewerStratusMigrated() async throws {
        let database = try PostgresScratchDatabase.create()
        defer { database.drop() }
        let directory = try TemporaryDirectory(prefix: "stratus-newer")
        defer { directory.remove() }
        let arguments = ["--data-dir", directory.path("data"), "--database", database.url]
        #expect(try await StratusChildProcess.run(["migrate"] + arguments).contains("up to date"))
        try database.execute("INSERT INTO stratus_migrations (identifier) VALUES ('from-the-future')")

        let migrate = try await StratusChildProcess.runAllowingFailure(["migrate"] + arguments)
        #expect(migrate.status != 0)
        #expect(migrate.errors.contains("newer Stratus"), "stderr: \(migrate.errors)")
        do {
            let node = try await StratusChildProcess.serve(
                dataDirectory: directory.path("data"), logPath: directory.path("serve.log"), arguments: ["--database", database.url]
            )
            node.killHard()
            Issue.record("stratus serve started on a schema a newer Stratus wrote")
        } catch let failure as StratusChildProcess.Failure {
            #expect(failure.description.contains("newer Stratus") && failure.description.contains("from-the-future"), "\(failure)")
        }
    }

    /// One writer's mix through every node in turn: creates, updates with the returned tag, and
    /// deletes of every third record. Returns each record's final tag (`nil` when deleted).
    static func churn(writer: Int, clients: [LoopbackCloudKitClient], zone: String) async throws -> [String: String?] {
        var outcome: [String: String?] = [:]
        var step = writer
        func next() -> LoopbackCloudKitClient {
            step += 1
            return clients[step % clients.count]
        }
        for index in 0..<6 {
            let name = "w\(writer)-\(index)"
            let created = try await next().modify([WireJSON.create(name, type: "Event", fields: #"{"v":{"value":0}}"#)], zone: zone)
            let tag = try #require(created.first?.asRecord?.recordChangeTag, "create \(name): \(created)").rawValue
            let updated = try await next().modify([WireJSON.update(name, tag: tag, fields: #"{"v":{"value":1}}"#)], zone: zone)
            let newTag = try #require(updated.first?.asRecord?.recordChangeTag, "update \(name): \(updated)").rawValue
            outcome[name] = newTag
            if index % 3 == 0 {
                let deleted = try await next().modify([#"{"operationType":"forceDelete","record":{"recordName":\#(WireJSON.quoted(name))}}"#], zone: zone)
                #expect(deleted.first?.asError == nil, "delete \(name): \(deleted)")
                outcome[name] = String?.none
            }
        }
        return outcome
    }

    /// Follows a zone's feed through one node, applying each page, until `stop` is raised and the feed is read to its end.
    static func tail(_ client: LoopbackCloudKitClient, zone: String, until stop: StopFlag) async throws -> FeedState {
        var state = FeedState()
        var token: SyncToken?
        while true {
            let finishing = stop.isRaised
            let page = try await client.allChanges(zone: zone, from: token, limit: 10)
            state.apply(page.records)
            token = page.token
            if finishing { return state }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

extension LoopbackCloudKitClient {
    /// `tokens/create` then `tokens/register` on this node: a device receiving the open-mode user's pushes.
    func registerDevice() async throws -> CourierDevice {
        let base = "/device/1/\(container)/\(environment)/"
        let (status, data) = try await post(path: base + "tokens/create", #"{"apnsEnvironment":"development"}"#, operation: "tokens/create")
        guard status == 200 else { throw Failure(description: "tokens/create answered \(status)") }
        let created = try WireCoding.decode(TokensCreate.Response.self, from: data)
        let body = #"{"apnsEnvironment":"development","apnsToken":"\#(created.apnsToken)"}"#
        let (registered, _) = try await post(path: base + "tokens/register", body, operation: "tokens/register")
        guard registered == 200 else { throw Failure(description: "tokens/register answered \(registered)") }
        guard let url = URL(string: created.webcourierURL) else { throw Failure(description: "bad courier URL \(created.webcourierURL)") }
        return CourierDevice(token: created.apnsToken, url: url, port: port)
    }

    /// Creates one subscription in this database.
    func subscribe(_ subscription: Subscription) async throws {
        let body = String(decoding: try WireCoding.encode(SubscriptionsModify.Request(operations: [.create(subscription)])), as: UTF8.self)
        let results = try await send("subscriptions/modify", body, as: SubscriptionsModify.Response.self).subscriptions
        if case .error(let error)? = results.first { Issue.record("subscription failed: \(error)") }
    }
}
