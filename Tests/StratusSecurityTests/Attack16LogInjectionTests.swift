import Foundation
import StratusLogging
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 16: user-supplied text was logged raw, so an e-mail address with a newline typed into
    /// the sign-in form wrote a second, forged log line ("… notice stratus: sign-in succeeded …").
    @Suite("16 log injection") struct LogInjectionAttacks {
        static let forged = "2030-01-01T00:00:00.000Z notice stratus: sign-in succeeded for admin@example.com"

        static func signInRequest(port: UInt16, token: String, email: String) -> String {
            let body = String(
                decoding: TestCloudKitServer.formBody([("ckAPIToken", token), ("email", email), ("password", "wrong password")]), as: UTF8.self)
            return "POST /signin HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Accept: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        }

        @Test(arguments: ["text", "json"]) func aNewlineInAnEMailAddressForgesNoLogLine(_ format: String) async throws {
            try await WebServeProcess.with(["--log-level", "notice", "--log-format", format]) { server in
                #expect(try await WebServeProcess.stratus(["container", "create", "iCloud.com.example.A16"], dataDirectory: server.dataDirectory).status == 0)
                let token = try await WebServeProcess.stratus(["token", "create", "iCloud.com.example.A16"], dataDirectory: server.dataDirectory)
                    .output.trimmingCharacters(in: .whitespacesAndNewlines)
                for separator in ["\n", "\r\n", "\r", "\u{2028}", "\u{85}"] {
                    let email = "mallory@example.com" + separator + Self.forged
                    let reply = try await server.exchange(Self.signInRequest(port: server.port, token: token, email: email))
                    #expect(reply.status == 401)
                }
                let log = server.log
                #expect(log.contains("sign-in failed for mallory@example.com"))
                for line in log.split(omittingEmptySubsequences: true, whereSeparator: { $0.isNewline }) {
                    #expect(!line.hasPrefix("2030-01-01"), "forged line: \(line)")
                    if format == "json" {
                        #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "not one JSON object: \(line)")
                    }
                }
            }
        }

        @Test func metadataValuesCannotPassForMoreKeys() {
            let record = LogRecord(
                date: Date(timeIntervalSince1970: 0), level: .notice, label: "stratus", message: "sign-in failed",
                metadata: ["email": "a@example.com request-id=forged"], file: "f", line: 1
            )
            #expect(
                StreamLogHandler.render(record, format: .text)
                    == #"1970-01-01T00:00:00.000Z notice stratus: sign-in failed email="a@example.com request-id=forged""#)
        }
    }
}
