import Foundation
import StratusClient
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// The client SDK against a server that requires authentication.
@Suite struct SDKInteropTests {
    @Test func sdkSignedInUserFollowsTokenRotationAndKeepsItsPrivateDatabase() async throws {
        try await withAuthServer { server in
            let ada = try await server.signedInUser("ada@example.com")
            let bob = try await server.signedInUser("bob@example.com")
            var configuration = ClientConfiguration()
            configuration.retryPolicy = .never
            let container = { (user: TestCloudKitServer.SignedInUser) in
                Container(
                    identifier: TestCloudKitServer.container, environment: .development, serverURL: server.http.url(""),
                    authentication: .apiToken(user.apiToken, webAuthToken: user.webAuthToken), configuration: configuration)
            }
            let adas = container(ada)
            var note = Record(recordType: "Note", recordID: RecordID(recordName: "diary"))
            note["title"] = "private"
            _ = try await adas.privateCloudDatabase.save(note)
            #expect(adas.webAuthToken != ada.webAuthToken)
            let fetched = try await adas.privateCloudDatabase.record(for: RecordID(recordName: "diary"))
            #expect(fetched.creatorUserRecordName == ada.recordName)

            await #expect(throws: StratusError.self) {
                _ = try await container(bob).privateCloudDatabase.record(for: RecordID(recordName: "diary"))
            }
            let anonymous = Container(
                identifier: TestCloudKitServer.container, environment: .development, serverURL: server.http.url(""),
                authentication: .apiToken(ada.apiToken), configuration: configuration)
            await #expect {
                _ = try await anonymous.privateCloudDatabase.allRecordZones()
            } throws: { error in
                (error as? StratusError)?.code == .notAuthenticated
            }
        }
    }
}
