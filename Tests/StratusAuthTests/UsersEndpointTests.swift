import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// `users/*` (Apple's CloudKit Web Services Reference: “Users”): only discoverable users are found and reveal names.
@Suite struct UsersEndpointTests {
    @Test func callerAnswersWithFlatKeysAndAUsersArray() async throws {
        try await withAuthServer { server in
            let ada = try await server.signedInUser("Ada@Example.com", names: NameComponents(givenName: "Ada", familyName: "Lovelace"))
            let reply = try await server.exchange("users/caller", method: "GET", database: "public", query: ada.query)
            #expect(reply.status == 200)
            #expect(reply.json["userRecordName"]?.stringValue == ada.recordName)
            #expect(reply.json["users"]?[0]?["userRecordName"]?.stringValue == ada.recordName)
            #expect(reply.json["nameComponents"]?["givenName"]?.stringValue == "Ada")
            #expect(reply.json["lookupInfo"]?["emailAddress"]?.stringValue == "ada@example.com")
            let decoded = try WireCoding.decode(UsersCaller.Response.self, from: reply.body)
            #expect(decoded.identity.userRecordName == ada.recordName)
            #expect(ada.recordName.count == 33 && ada.recordName.hasPrefix("_"))
            // Also on the private database (seen live); the other users endpoints refuse it.
            #expect(try await server.exchange("users/caller", method: "GET", database: "private", query: ada.query).status == 200)
            let discover = try await server.exchange("users/discover", #"{"lookupInfos":[]}"#, database: "private", query: ada.query)
            #expect(discover.status == 400)
            #expect(discover.reason == "endpoint not applicable in the database type 'privatedb'")
        }
    }

    @Test func currentRevealsNamesOnlyOfDiscoverableUsers() async throws {
        try await withAuthServer { server in
            let names = NameComponents(givenName: "Ada", familyName: "Lovelace")
            let hidden = try await server.signedInUser("hidden@example.com", names: names)
            let open = try await server.signedInUser("open@example.com", discoverable: true, names: names)
            let hiddenReply = try await server.exchange("users/current", method: "GET", database: "public", query: hidden.query)
            #expect(hiddenReply.json["userRecordName"]?.stringValue == hidden.recordName)
            #expect(hiddenReply.json["firstName"]?.stringValue == nil)
            let openReply = try await server.exchange("users/current", method: "GET", database: "public", query: open.query)
            #expect(openReply.json["firstName"]?.stringValue == "Ada")
            #expect(openReply.json["lastName"]?.stringValue == "Lovelace")
        }
    }

    @Test func discoverAndLookupsFindOnlyDiscoverableUsers() async throws {
        try await withAuthServer { server in
            let caller = try await server.signedInUser("caller@example.com")
            let open = try await server.signedInUser("open@example.com", discoverable: true, names: NameComponents(givenName: "Grace", familyName: "Hopper"))
            let hidden = try await server.signedInUser("hidden@example.com", names: NameComponents(givenName: "Secret"))
            let infos =
                #"{"lookupInfos":[{"emailAddress":"OPEN@example.com"},{"emailAddress":"hidden@example.com"},{"userRecordName":\#(Body.quoted(open.recordName))},{"userRecordName":\#(Body.quoted(hidden.recordName))},{"emailAddress":"nobody@example.com"}]}"#
            let discover = try await server.exchange("users/discover", infos, database: "public", query: caller.query)
            #expect(discover.status == 200)
            #expect(discover.strings("users", "userRecordName") == [open.recordName, open.recordName])
            #expect(discover.json["users"]?[0]?["nameComponents"]?["givenName"]?.stringValue == "Grace")
            #expect(!discover.text.contains("Secret") && !discover.text.contains(hidden.recordName))

            let all = try await server.exchange("users/discover", method: "GET", database: "public", query: caller.query)
            #expect(all.status == 200)
            #expect(all.strings("users", "userRecordName").isEmpty)

            let byEmail = try await server.exchange(
                "users/lookup/email", #"{"users":[{"emailAddress":"open@example.com"},{"emailAddress":"hidden@example.com"}]}"#,
                database: "public", query: caller.query)
            #expect(byEmail.strings("users", "emailAddress") == ["open@example.com"])
            #expect(byEmail.strings("users", "firstName") == ["Grace"])
            let byID = try await server.exchange(
                "users/lookup/id", #"{"users":[{"userRecordName":\#(Body.quoted(open.recordName))},{"userRecordName":\#(Body.quoted(hidden.recordName))}]}"#,
                database: "public", query: caller.query)
            #expect(byID.strings("users", "userRecordName") == [open.recordName])
            #expect(byID.strings("users", "emailAddress").isEmpty)
        }
    }
}
