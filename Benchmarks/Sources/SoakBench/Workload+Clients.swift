import BenchSupport
import Foundation
import Synchronization

/// When each ping record was sent, so a device can tell how long its notification took.
final class PingLog: Sendable {
    private let sent = Mutex<[Int: UInt64]>([:])

    func record(_ ping: Int, at nanoseconds: UInt64) {
        sent.withLock { sent in
            sent[ping] = nanoseconds
            sent[ping - 100] = nil  // a device hears of a ping within seconds or not at all
        }
    }

    func sentAt(_ ping: Int) -> UInt64? { sent.withLock { $0[ping] } }
}

extension Workload {
    /// A subscription on `Ping` creations, `devices` courier tokens each with a poll kept parked,
    /// and a ping every second (the previous one deleted in the same request, which fires nothing).
    func startPush(_ setup: Session, tokens: () throws -> String) throws {
        let subscription = #"{"subscriptionID":"pings","subscriptionType":"query","query":{"recordType":"Ping"},"firesOn":["create"]}"#
        try setupCall(setup, setup.target("subscriptions/modify"), #"{"operations":[{"operationType":"create","subscription":\#(subscription)}]}"#)
        for _ in 0..<Self.devices {
            let created = try setupCall(setup, setup.deviceTarget("tokens/create"), #"{"apnsEnvironment":"development"}"#)
            guard let url = created.body.jsonString(after: "webcourierURL"), let apnsToken = created.body.jsonString(after: "apnsToken") else {
                throw BenchmarkFailure("tokens/create answered without a courier URL: \(created.text)")
            }
            try setupCall(setup, setup.deviceTarget("tokens/register"), #"{"apnsEnvironment":"development","apnsToken":"\#(apnsToken)"}"#)
            let courier = Self.urlPath(url)
            every(0, webAuthToken: nil) { [pings] session, _ in
                guard let (reply, _) = try? session.exchange("GET", courier) else { return session.recorder.unexpected("poll", "the poll's connection failed") }
                let arrival = monotonicNanoseconds()
                guard reply.status == 200 else { return session.recorder.unexpected("poll", "\(reply.status) \(reply.text)") }
                guard !reply.body.isEmpty else { return }  // the poll timed out with nothing to say: not an error
                guard let rid = reply.body.jsonString(after: "rid"), rid.hasPrefix("ping-"), let ping = Int(rid.dropFirst(5)),
                    let sent = pings.sentAt(ping)
                else { return session.recorder.unexpected("poll", "a notification of no known ping: \(reply.text)") }
                session.recorder.succeeded("poll", nanoseconds: Double(arrival &- sent))
            }
        }
        every(1, webAuthToken: try tokens()) { [pings] session, n in
            var operations = [#"{"operationType":"create","record":{"recordName":"ping-\#(n)","recordType":"Ping","fields":{}}}"#]
            if n > 0 { operations.append(#"{"operationType":"forceDelete","record":{"recordName":"ping-\#(n - 1)"}}"#) }
            pings.record(n, at: monotonicNanoseconds())
            session.expectSuccess("ping", "POST", session.target("records/modify"), body: Self.modify(operations, zone: nil))
        }
    }

    /// A request the run cannot go on without: a failure ends it.
    @discardableResult
    func setupCall(_ session: Session, _ target: String, _ body: String) throws -> LoopbackHTTPClient.Response {
        let (reply, _) = try session.exchange("POST", target, body: Array(body.utf8))
        guard reply.status == 200, !reply.body.contains("serverErrorCode") else { throw BenchmarkFailure("setup answered \(reply.status): \(reply.text)") }
        return reply
    }

    /// Assets up and down every 2 s; a sign-in, one lookup and a sign-out every 3 s; a wrong password every 30 s.
    func startAssetsAndSignIns(tokens: () throws -> String) throws {
        every(2, webAuthToken: try tokens()) { session, n in Self.assetRound(session, n) }
        let (apiToken, signingIn) = (apiToken, signingIn)
        every(3, webAuthToken: nil) { session, n in
            let form = "ckAPIToken=\(apiToken)&email=\(Session.queryEscaped(SoakServer.email))&password=\(Session.queryEscaped(SoakServer.password))"
            let json = [("Accept", "application/json")]
            signingIn.lock()
            let signedIn = session.expectSuccess("sign-in", "POST", "/signin", body: Array(form.utf8), headers: json)
            signingIn.unlock()
            guard let reply = signedIn, let token = reply.body.jsonString(after: "ckWebAuthToken") else { return }
            session.webAuthToken = token
            let lookup = #"{"records":[{"recordName":"w1"}],"zoneID":\#(Self.zone)}"#
            session.expectSuccess("signed-in lookup", "POST", session.target("records/lookup"), body: Array(lookup.utf8))
            let signOut = "ckWebAuthToken=\(Session.queryEscaped(session.webAuthToken ?? token))"
            session.webAuthToken = nil
            session.expectSuccess("sign-out", "POST", "/signout", body: Array(signOut.utf8), headers: json)
            if n % 10 == 5 {
                let wrong = "ckAPIToken=\(apiToken)&email=nobody-\(n)%40example.com&password=wrong"
                signingIn.lock()
                defer { signingIn.unlock() }
                session.expectFailure("wrong password", status: 401, code: "AUTHENTICATION_FAILED", "POST", "/signin", body: Array(wrong.utf8), headers: json)
            }
        }
    }

    /// One asset of 64–320 KB: `assets/upload`, the bytes to the upload URL, a record holding it, the download compared.
    static func assetRound(_ session: Session, _ n: Int) {
        let name = "photo-\(n % 20)"
        let request = #"{"tokens":[{"recordName":"\#(name)","recordType":"Photo","fieldName":"image"}]}"#
        guard let tokens = session.expectSuccess("asset URL", "POST", session.target("assets/upload"), body: Array(request.utf8)),
            let url = tokens.body.jsonString(after: "url")
        else { return }
        let bytes = (0..<((1 + n % 5) * 64 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) }
        guard let receipt = session.expectSuccess("upload", "POST", urlPath(url), body: bytes) else { return }
        let text = receipt.text
        guard text.hasPrefix(#"{"singleFile":"#), text.hasSuffix("}") else { return session.recorder.unexpected("upload", "receipt: \(text)") }
        let asset = text.dropFirst(#"{"singleFile":"#.count).dropLast()
        let save =
            #"{"operationType":"forceReplace","record":{"recordName":"\#(name)","recordType":"Photo","fields":{"image":{"value":\#(asset),"type":"ASSETID"}}}}"#
        guard let saved = session.expectSuccess("asset save", "POST", session.target("records/modify"), body: modify([save], zone: nil)),
            let download = saved.body.jsonString(after: "downloadURL")
        else { return }
        let target = urlPath(download).replacingOccurrences(of: "${f}", with: "photo.bin")
        guard let (reply, nanoseconds) = try? session.exchange("GET", target) else { return session.recorder.unexpected("download", "connection failed") }
        guard reply.status == 200, reply.body == bytes else {
            return session.recorder.unexpected("download", "\(reply.status), \(reply.body.count) bytes of \(bytes.count)")
        }
        session.recorder.succeeded("download", nanoseconds: nanoseconds)
    }

    /// The path and query of a URL the server handed out.
    static func urlPath(_ escaped: String) -> String {
        let url = escaped.replacingOccurrences(of: "\\/", with: "/")
        guard let range = url.range(of: "://") else { return url }
        let rest = url[range.upperBound...]
        return rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
    }
}
