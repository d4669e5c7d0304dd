import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 2(b): a query subscription's `additionalFields` and `alertLocalizationArgs`
    /// pushed the fields of public records the subscriber may not read (creator-only read).
    @Suite("02b push fan-out and security roles") struct PushFanoutPolicyAttacks {
        static let backends = RecordStoreBackend.allCases

        /// `Diary`: only its creator reads it; `Post`: CloudKit's default roles (everyone reads).
        static let schema = Data(
            #"""
            {"recordTypes": {
              "Diary": {"fields": {"title": {"type": "STRING"}},
                        "roles": {"authenticated": {"create": true}, "creator": {"read": true, "write": true}}},
              "Post": {"fields": {"title": {"type": "STRING"}}}
            }}
            """#.utf8)

        /// A query subscription on `type` that asks for the record's `title` in `af` and in the alert's arguments.
        static func prying(_ id: String, type: String) -> String {
            #"""
            {"subscriptionID":"\#(id)","subscriptionType":"query","query":{"recordType":"\#(type)"},"firesOn":["create","update","delete"],
             "notificationInfo":{"additionalFields":["title"],"alertLocalizationKey":"NEW","alertLocalizationArgs":["title"]}}
            """#
        }

        /// B subscribes to Diary (creator-only read) asking for its title; A's diary entries, created,
        /// updated and deleted, push nothing to B — neither the title nor the record's existence —
        /// while B still hears of a readable Post, and A, who may read the diary, hears of it.
        @Test(arguments: backends) func hiddenRecordsPushNothingToSubscribersWhoCannotReadThem(_ backend: RecordStoreBackend) async throws {
            try await PushAttack.withServer(backend, configure: { $0.push.pollTimeout = .seconds(1) }) { server in
                _ = try await server.store.importSchema(
                    try SchemaDeployment.decode(Self.schema), container: TestCloudKitServer.container, environment: .development
                )
                let author = try await server.signedInUser("author@example.com")
                let snoop = try await server.signedInUser("snoop@example.com")
                for (user, id, type) in [(snoop, "diaries", "Diary"), (snoop, "posts", "Post"), (author, "mine", "Diary")] {
                    let reply = try await PushAttack.subscribe(Self.prying(id, type: type), as: user, on: server)
                    #expect(reply.itemErrorCodes("subscriptions") == [nil], "\(reply.text)")
                }
                let snoopDevice = try await PushAttack.device(of: snoop, on: server)
                let authorDevice = try await PushAttack.device(of: author, on: server)

                let fields = #"{"title":{"value":"the secret diary entry"}}"#
                #expect(try await PushAttack.create("d1", type: "Diary", fields: fields, as: author, on: server).itemErrorCodes("records") == [nil])
                let update =
                    #"{"operations":[{"operationType":"forceUpdate","record":{"recordName":"d1","recordType":"Diary","fields":{"title":{"value":"the secret, changed"}}}}]}"#
                #expect(try await server.exchange("records/modify", update, database: "public", query: author.query).itemErrorCodes("records") == [nil])
                let delete = #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"d1"}}]}"#
                #expect(try await server.exchange("records/modify", delete, database: "public", query: author.query).itemErrorCodes("records") == [nil])
                #expect(
                    try await PushAttack.create("p1", type: "Post", fields: #"{"title":{"value":"hello"}}"#, as: author, on: server).itemErrorCodes("records")
                        == [nil])

                // B's first notification is the Post (written last): nothing about the diary came before it.
                let first = try #require(try await snoopDevice.notification())
                #expect(first.ck.qry?.sid == "posts")
                #expect(first.ck.qry?.rid == "p1")
                #expect(first.ck.qry?.af?["title"] == .string("hello"))
                let rest = try await snoopDevice.poll()
                #expect(rest.body.isEmpty, "B received more: \(String(decoding: rest.body, as: UTF8.self))")
                #expect(!String(decoding: rest.body, as: UTF8.self).contains("secret"))

                // The author may read their diary and hears of all three changes, fields included.
                var authorNotifications: [CourierNotification] = []
                for _ in 0..<3 {
                    authorNotifications.append(try #require(try await authorDevice.notification()))
                }
                #expect(authorNotifications.map { $0.ck.qry?.fo } == [1, 2, 3])
                #expect(authorNotifications.first?.ck.qry?.af?["title"] == .string("the secret diary entry"))
            }
        }
    }
}
