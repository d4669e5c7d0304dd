import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 9: sign-up was on with no switch and no e-mail verification, and answered "an account
    /// with the e-mail address … already exists" — an oracle for who has an account. Whoever
    /// registered an address first got the shares its owner was invited to by e-mail.
    @Suite("09 sign-up without verification") struct SignUpAttacks {
        static let jsonHeaders = ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"]

        static func signUp(_ server: TestCloudKitServer, apiToken: String, email: String, json: Bool) async throws -> TestCloudKitServer.Reply {
            let fields = [("email", email), ("givenName", "Sam")]
            if json {
                return try await server.exchange(
                    "/signup", body: TestCloudKitServer.formBody([("ckAPIToken", apiToken)] + fields), headers: Self.jsonHeaders)
            }
            return try await server.submit("/signup", form: try await server.signInForm(apiToken: apiToken, create: true), fields: fields)
        }

        @Test func signUpSaysTheSameWhetherOrNotTheAddressHasAnAccount() async throws {
            let inbox = VerificationInbox()
            try await withWebAttackServer(configure: { $0.authentication.verificationDelivery = inbox.delivery }) { server in
                _ = try await server.signedInUser("alice@example.com")
                let token = try await server.makeBrowserAPIToken()
                for json in [true, false] {
                    let taken = try await Self.signUp(server, apiToken: token, email: "alice@example.com", json: json)
                    let free = try await Self.signUp(server, apiToken: token, email: "nobody@example.com", json: json)
                    #expect(taken.status == free.status)
                    #expect(taken.status == (json ? 202 : 200))
                    #expect(!taken.text.contains("already exists"))
                    #expect(
                        taken.text.replacingOccurrences(of: "alice@example.com", with: "X")
                            == free.text.replacingOccurrences(of: "nobody@example.com", with: "X"))
                }
                // The same work for both: a link to each address, nothing stored.
                #expect(inbox.messages.map(\.emailAddress) == ["alice@example.com", "nobody@example.com", "alice@example.com", "nobody@example.com"])
                #expect(try await server.admin().users().map(\.emailAddress) == ["alice@example.com"])
            }
        }

        @Test func aSquatterCannotClaimAnAddressOrItsInvitations() async throws {
            let inbox = VerificationInbox()
            try await withWebAttackServer(configure: { $0.authentication.verificationDelivery = inbox.delivery }) { server in
                let owner = try await server.signedInUser("owner@example.com")
                let token = try await server.makeBrowserAPIToken()
                // The squatter signs up with bob's address before bob does: no account, no token.
                let squat = try await server.exchange(
                    "/signup", body: TestCloudKitServer.formBody([("ckAPIToken", token), ("email", "bob@example.com"), ("password", "squatter pw")]),
                    headers: Self.jsonHeaders)
                #expect(squat.status == 202)
                #expect(squat.json["ckWebAuthToken"] == nil)
                #expect(try await server.admin().users().map(\.emailAddress) == ["owner@example.com"])
                // The link went to bob's mailbox, not to the squatter.
                #expect(inbox.messages.map(\.emailAddress) == ["bob@example.com"])
                #expect(!squat.text.contains("verify?"))
                #expect(try await Self.shareZone(server, owner: owner, with: "bob@example.com").status == 200)
            }
        }

        @Test(arguments: RecordStoreBackend.allCases) func anUnverifiedAccountDoesNotReceiveSharesInvitedToItsAddress(
            _ backend: RecordStoreBackend
        ) async throws {
            try await withWebAttackServer(backend: backend) { server in
                let owner = try await server.signedInUser("owner@example.com")
                // A squatter's account from before verification existed: bob's address, never verified.
                let squatter = UserAccount(userRecordName: "_" + String(repeating: "5", count: 32), emailAddress: "bob@example.com", createdAt: 1)
                let accounts = try #require(server.store as? any AccountStore)
                #expect(try await accounts.writeAccounts { try $0.insertUser(squatter) })
                let apiToken = try await server.makeAPIToken()
                let squatterToken = try await server.admin().webAuthToken(for: squatter.userRecordName, container: TestCloudKitServer.container)
                let created = try await Self.shareZone(server, owner: owner, with: "bob@example.com")
                #expect(!created.text.contains(squatter.userRecordName))  // the invitation binds to no account
                let guid = try #require(Self.shortGUID(in: created))
                let accept = try await server.exchange(
                    "records/accept", #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, database: "public",
                    query: [("ckAPIToken", apiToken), ("ckWebAuthToken", squatterToken)])
                #expect(accept.text.contains("ACCESS_DENIED"), "\(accept.text)")
                // Nor is the address found by e-mail lookup.
                let lookup = try await server.exchange(
                    "users/lookup/email", #"{"users":[{"emailAddress":"bob@example.com"}]}"#, database: "public", query: owner.query)
                #expect(!lookup.text.contains(squatter.userRecordName))
                // Once the administrator vouches for the address (stored on either back end), it does.
                let verified = try await server.admin().markEmailVerified("bob@example.com")
                #expect(try await server.admin().user(matching: "bob@example.com").emailVerifiedAt == verified.emailVerifiedAt)
                #expect(verified.isEmailVerified)
                let accepted = try await server.exchange(
                    "records/accept", #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, database: "public",
                    query: [("ckAPIToken", apiToken), ("ckWebAuthToken", squatterToken)])
                #expect(accepted.text.contains(#""participantStatus":"ACCEPTED""#), "\(accepted.text)")
            }
        }

        @Test(arguments: RecordStoreBackend.allCases) func theAddressOwnerTakesOverAnUnverifiedAccountThroughTheLink(
            _ backend: RecordStoreBackend
        ) async throws {
            let inbox = VerificationInbox()
            try await withWebAttackServer(backend: backend, configure: { $0.authentication.verificationDelivery = inbox.delivery }) { server in
                let squatter = UserAccount(userRecordName: "_" + String(repeating: "6", count: 32), emailAddress: "bob@example.com", createdAt: 1)
                let accounts = try #require(server.store as? any AccountStore)
                #expect(try await accounts.writeAccounts { try $0.insertUser(squatter) })
                let apiToken = try await server.makeBrowserAPIToken()
                let squatterToken = try await server.admin().webAuthToken(for: squatter.userRecordName, container: TestCloudKitServer.container)
                let squatterQuery = [("ckAPIToken", apiToken), ("ckWebAuthToken", squatterToken)]
                #expect(try await server.exchange("zones/list", method: "GET", query: squatterQuery).status == 200)

                // Bob signs up with his own address and follows the link he receives.
                let sent = try await Self.signUp(server, apiToken: apiToken, email: "bob@example.com", json: true)
                #expect(sent.status == 202)
                let target = try #require(inbox.messages.last.flatMap { VerificationInbox.target(of: $0.link) })
                let form = try await server.signInForm(apiToken: apiToken, path: target)
                let ticket = try #require(TestCloudKitServer.hiddenField("ticket", in: form.page.text))
                let done = try await server.submit(
                    "/verify", form: form, fields: [("ticket", ticket), ("password", "bob's own password")], headers: ["Accept": "application/json"])
                #expect(done.status == 200, "\(done.text)")
                #expect(done.json["userRecordName"]?.stringValue == squatter.userRecordName)
                let account = try await server.admin().user(matching: "bob@example.com")
                #expect(account.isEmailVerified)
                // The squatter is out: its sessions are signed out.
                #expect(try await server.exchange("zones/list", method: "GET", query: squatterQuery).status == 401)
                // A second use of the link finds a verified account and makes nothing.
                let again = try await server.submit(
                    "/verify", form: form, fields: [("ticket", ticket), ("password", "another password")], headers: ["Accept": "application/json"])
                #expect(again.serverErrorCode == "EXISTS")
            }
        }

        @Test func theOperatorGetsTheLinkInTheLogOrTheOutboxAndNoSignupTurnsItOff() async throws {
            #expect(try await WebServeProcess.stratus(["serve", "--help"], dataDirectory: "/nonexistent").output.contains("--no-signup"))
            for outbox in [false, true] {
                let outboxPath = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString).jsonl").path
                defer { unlink(outboxPath) }
                try await WebServeProcess.with(["--log-level", "notice"] + (outbox ? ["--verification-outbox", outboxPath] : [])) { server in
                    let token = try await Self.browserToken(server)
                    let reply = try await server.exchange(Self.signUpRequest(server, token: token, email: "dana@example.com"))
                    #expect(reply.status == 202)
                    let delivered = outbox ? ((try? String(contentsOfFile: outboxPath, encoding: .utf8)) ?? "") : server.log
                    let prefix = "http://127.0.0.1:\(server.port)/verify?ckAPIToken="
                    let start = try #require(delivered.range(of: prefix)?.lowerBound, "\(delivered)")
                    let link = String(delivered[start...].prefix { $0 != "\"" && !$0.isWhitespace })
                    #expect(delivered.contains("dana@example.com"))
                    let target = try #require(VerificationInbox.target(of: link))
                    let page = try await server.exchange("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n")
                    #expect(page.status == 200)
                    #expect(String(decoding: page.body, as: UTF8.self).contains(#"action="/verify""#))
                }
            }
            try await WebServeProcess.with(["--no-signup"]) { server in
                let reply = try await server.exchange(Self.signUpRequest(server, token: try await Self.browserToken(server), email: "dana@example.com"))
                #expect(reply.status == 400)
                #expect(String(decoding: reply.body, as: UTF8.self).contains("does not allow creating accounts"))
            }
        }

        static func browserToken(_ server: WebServeProcess) async throws -> String {
            #expect(try await WebServeProcess.stratus(["container", "create", "iCloud.com.example.A09"], dataDirectory: server.dataDirectory).status == 0)
            let created = try await WebServeProcess.stratus(
                ["token", "create", "iCloud.com.example.A09", "--origins", "https://app.example.com"], dataDirectory: server.dataDirectory)
            return created.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        static func signUpRequest(_ server: WebServeProcess, token: String, email: String) -> String {
            let body = String(decoding: TestCloudKitServer.formBody([("ckAPIToken", token), ("email", email)]), as: UTF8.self)
            return "POST /signup HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Accept: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        }

        static func shareZone(_ server: TestCloudKitServer, owner: TestCloudKitServer.SignedInUser, with email: String) async throws -> TestCloudKitServer.Reply
        {
            _ = try await server.exchange(
                "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Projects"}}}]}"#, query: owner.query)
            let participant =
                #"{"type":"USER","permission":"READ_WRITE","acceptanceStatus":"INVITED","userIdentity":{"lookupInfo":{"emailAddress":"\#(email)"}}}"#
            let share =
                #"{"zoneID":{"zoneName":"Projects"},"operations":[{"operationType":"create","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","fields":{},"publicPermission":"NONE","participants":[\#(participant)]}}]}"#
            return try await server.exchange("records/modify", share, query: owner.query)
        }

        static func shortGUID(in reply: TestCloudKitServer.Reply) -> String? {
            guard case .object(let object) = reply.json, case .array(let records)? = object["records"], case .object(let record)? = records.first,
                case .string(let guid)? = record["shortGUID"]
            else { return nil }
            return guid
        }
    }
}
