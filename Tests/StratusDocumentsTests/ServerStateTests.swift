import Foundation
import StratusDocuments
import StratusServer
import StratusTesting
import Testing

/// What the server holds and what a device holds disagree (issue 22, #4, #5, #11): a server that lost
/// everything gets the devices' documents back, two spellings of one name are one name, and files a new
/// device already has are recognised instead of twinned.
/// Serialized: each test runs a server and devices; one at a time leaves the 2 cores to other suites' servers.
@Suite(.serialized) struct ServerStateTests {
    /// #4: the server's data is wiped (a new, empty server at the same address): a new device creates the
    /// zone first, then the old devices re-upload what they have, say so, and all three converge.
    @Test func aWipedServerGetsTheDevicesDocumentsBack() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair()
            try a.write("one.txt", "1")
            try a.write("Folder/two.txt", "2")
            try await a.sync()
            try await b.sync()
            let fresh = try await TestCloudKitServer.startAuthenticated { $0.tokenSecret = Data(repeating: 9, count: 32) }
            try await stoppingAfterUse(fresh, stop: { await $0.stop() }) { fresh in
                let user = try await fresh.signedInUser("docs@example.com")
                let c = try fixture.device("C")
                for device in [a, b, c] {
                    device.transport.redirect(
                        from: fixture.server.http.url(""), to: fresh.http.url(""), apiToken: user.apiToken, webAuthToken: user.webAuthToken)
                }
                try a.write("one.txt", "1 edited after the wipe")
                try c.write("three.txt", "3 from C")
                try await c.sync()
                let reset = try await a.sync()
                #expect(reset.activities.map(\.description).contains { $0.contains("uploading them again") })
                try await b.sync()
                try await c.sync()
                try await a.sync()
                for device in [a, b, c] {
                    #expect(try device.files() == ["Folder/two.txt", "one.txt", "three.txt"])
                    #expect(try device.read("one.txt") == "1 edited after the wipe", "on \(device.root.lastPathComponent)")
                    #expect(try device.read("Folder/two.txt") == "2", "on \(device.root.lastPathComponent)")
                }
                for device in [a, b, c] { #expect(try await device.sync().isEmpty) }
            }
        }
    }

    /// #11: a new device that already holds copies of the files (copied by hand, or a device whose state was
    /// deleted and re-linked) recognises identical bytes: no upload, no `(B)` twins, on either path.
    @Test func identicalCopiesAlreadyOnADeviceAreRecognised() async throws {
        try await DocumentsFixture.run { fixture in
            let files = ["a.txt": "alpha", "Sub/b.txt": "beta", "Sub/c.txt": "gamma"]
            let a = try fixture.device("A")
            for (path, text) in files { try a.write(path, text) }
            try await a.sync()
            let rootB = fixture.directory.url.appendingPathComponent("B")
            for (path, text) in files {
                let url = rootB.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: url)
            }
            let b = try fixture.device("B")
            let adopted = try await b.sync()
            #expect(adopted.bytesUploaded == 0 && adopted.bytesDownloaded == 0, "identical bytes move nowhere")
            #expect(try b.files() == files.keys.sorted())
            #expect(try await fixture.serverRecordNames().count == 3)

            await a.documents.close()
            try FileManager.default.removeItem(at: a.root.appendingPathComponent(".stratus"))
            let relinked = try fixture.device("A")
            try await relinked.sync()
            try await b.sync()
            for device in [relinked, b] { #expect(try device.files() == files.keys.sorted()) }
            #expect(try await fixture.serverRecordNames().count == 3, "3, not 6")
        }
    }

    /// #5: `café.txt` in NFC on one device and in NFD on the other are one name: a collision like any
    /// other, settled once; no record flips between the spellings and neither content is lost.
    @Test func namesThatDifferOnlyInNormalizationCollideOnce() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair()
            try a.write("caf\u{E9}.txt", "from A, NFC")
            try b.write("cafe\u{301}.txt", "from B, NFD")
            for _ in 0..<5 {
                try await a.sync()
                try await b.sync()
            }
            for device in [a, b] {
                let files = try device.files()
                #expect(files.count == 2)
                #expect(Set(try files.compactMap { try device.read($0) }) == ["from A, NFC", "from B, NFD"])
                #expect(try await device.sync().isEmpty, "nothing re-uploads")
            }
            #expect(try await fixture.serverRecordNames().count == 2)
        }
    }

    /// #5: two files on one device whose names are equal under NFC are two documents, not one that flips.
    @Test func twoLocalSpellingsOfOneNameBothReachTheOtherDevice() async throws {
        try await DocumentsFixture.run { fixture in
            let (a, b) = try fixture.pair()
            try a.write("na\u{EF}ve.txt", "one")
            try a.write("nai\u{308}ve.txt", "two")
            for _ in 0..<3 {
                try await a.sync()
                try await b.sync()
            }
            for device in [a, b] {
                #expect(Set(try device.files().compactMap { try device.read($0) }) == ["one", "two"])
                #expect(try await device.sync().isEmpty)
            }
        }
    }
}
