import BenchSupport
import Foundation
import Synchronization

/// The soak's mixed workload: one thread per kind of client, each at a steady pace, until ``stop()``.
///
/// Every kind signs in as the same user with a session of its own. The kinds and their paces:
///
/// | kind | what | pace |
/// |---|---|---|
/// | write | one record, `forceReplace` among 2,000 names | 20/s |
/// | batch | 50 records in one `records/modify`, among 5,000 names | 1/s |
/// | query | `records/query`, a filter and a sort, 50 results | 5/s |
/// | changes | `changes/zone` from the last sync token | 2/s |
/// | ping, poll | a record that fires a subscription; 4 devices keep a courier poll parked | 1/s |
/// | upload, download | a 64–320 KB asset up, saved in a record, down and compared | 0.5/s |
/// | sign-in | `POST /signin` (JSON), one lookup with the new token, `POST /signout` | 1/3 s |
///
/// Provoked failures, counted apart: a stale change tag (`CONFLICT`) and a lookup of a record that
/// does not exist (`NOT_FOUND`) every 5 s, a wrong password (`AUTHENTICATION_FAILED`) every 30 s
/// (an address may try 30 sign-ins a minute).
final class Workload: Sendable {
    static let zone = #"{"zoneName":"Soak"}"#
    static let devices = 4

    let port: UInt16
    let apiToken: String
    let recorder: Recorder
    let pings = PingLog()
    /// Held while a sign-in runs: its password hash holds 64 MiB for as long as it takes (seconds on
    /// a loaded machine), so RSS is read between sign-ins, where a leak still shows.
    let signingIn = NSLock()
    private let stopping = Mutex(false)
    private let running = Mutex(0)

    init(port: UInt16, apiToken: String, recorder: Recorder) {
        self.port = port
        self.apiToken = apiToken
        self.recorder = recorder
    }

    var isStopping: Bool { stopping.withLock { $0 } }

    /// `body` while no sign-in runs.
    func betweenSignIns<T>(_ body: () throws -> T) rethrows -> T {
        signingIn.lock()
        defer { signingIn.unlock() }
        return try body()
    }

    /// Asks every thread to stop and waits (up to a poll timeout and a bit) until they have.
    func stop() {
        stopping.withLock { $0 = true }
        let deadline = Date().addingTimeInterval(45)
        while running.withLock({ $0 }) > 0, Date() < deadline { usleep(50_000) }
    }

    /// Runs `body(session, n)` for n = 0, 1, 2… every `interval` seconds on a thread of its own, with a
    /// session signed in with `webAuthToken` (none: anonymous). A late round starts at once, never two at once.
    func every(_ interval: Double, webAuthToken: String?, _ body: @escaping @Sendable (Session, Int) -> Void) {
        running.withLock { $0 += 1 }
        let (port, apiToken, recorder) = (port, apiToken, recorder)
        let thread = Thread { [self] in
            defer { running.withLock { $0 -= 1 } }
            guard let session = try? Session(port: port, apiToken: apiToken, webAuthToken: webAuthToken, recorder: recorder) else {
                recorder.unexpected("connect", "could not connect to 127.0.0.1:\(port)")
                return
            }
            var next = monotonicNanoseconds()
            var round = 0
            while !isStopping {
                body(session, round)
                round += 1
                next += UInt64(interval * 1e9)
                let now = monotonicNanoseconds()
                if next > now { usleep(UInt32((next - now) / 1000)) } else { next = now }
            }
        }
        thread.start()
    }

    /// Starts every kind; `tokens()` makes one web auth token per session.
    func start(tokens: () throws -> String) throws {
        let setup = try Session(port: port, apiToken: apiToken, webAuthToken: try tokens(), recorder: recorder)
        try setupCall(setup, setup.target("zones/modify"), #"{"operations":[{"operationType":"create","zone":{"zoneID":\#(Self.zone)}}]}"#)
        try setupCall(setup, setup.target("records/modify"), String(decoding: Self.modify([Self.note("conflicted", rank: 0)]), as: UTF8.self))
        every(0.05, webAuthToken: try tokens()) { session, n in
            session.expectSuccess("write", "POST", session.target("records/modify"), body: Self.modify([Self.note("w\(n % 2000)", rank: n)]))
        }
        every(1, webAuthToken: try tokens()) { session, n in
            let notes = (0..<50).map { Self.note("b\((n * 50 + $0) % 5000)", rank: n * 50 + $0) }
            session.expectSuccess("batch", "POST", session.target("records/modify"), body: Self.modify(notes))
        }
        every(0.2, webAuthToken: try tokens()) { session, n in
            session.expectSuccess("query", "POST", session.target("records/query"), body: Self.query(above: (n * 37) % 5000))
        }
        let feed = Mutex<String?>(nil)
        every(0.5, webAuthToken: try tokens()) { session, _ in
            let token = feed.withLock { $0 }.map { #","syncToken":"\#($0)""# } ?? ""
            let body = Array(#"{"zones":[{"zoneID":\#(Self.zone)\#(token)}],"resultsLimit":200}"#.utf8)
            if let reply = session.expectSuccess("changes", "POST", session.target("changes/zone"), body: body) {
                feed.withLock { $0 = reply.body.jsonString(after: "syncToken") }
            }
        }
        try startPush(setup, tokens: tokens)
        try startAssetsAndSignIns(tokens: tokens)
        try startProvoked(tokens: tokens)
    }

    /// The provoked failures.
    private func startProvoked(tokens: () throws -> String) throws {
        every(5, webAuthToken: try tokens()) { session, n in
            let stale =
                #"{"operations":[{"operationType":"update","record":{"recordName":"conflicted","recordType":"Note","recordChangeTag":"stale","fields":{}}}],"zoneID":\#(Self.zone)}"#
            session.expectFailure("conflict", status: 200, code: "CONFLICT", "POST", session.target("records/modify"), body: Array(stale.utf8))
            let missing = #"{"records":[{"recordName":"never-created"}],"zoneID":\#(Self.zone)}"#
            session.expectFailure("not found", status: 200, code: "NOT_FOUND", "POST", session.target("records/lookup"), body: Array(missing.utf8))
        }
    }

    // MARK: Bodies

    static func note(_ name: String, rank: Int) -> String {
        #"{"operationType":"forceReplace","record":{"recordName":"\#(name)","recordType":"Note","fields":{"title":{"value":"note \#(rank)"},"#
            + #""rank":{"value":\#(rank % 5000),"type":"INT64"},"body":{"value":"\#(String(repeating: "lorem ipsum ", count: 8))"}}}}"#
    }

    static func modify(_ operations: [String], zone: String? = Workload.zone) -> [UInt8] {
        Array(#"{"operations":[\#(operations.joined(separator: ","))]\#(zone.map { #","zoneID":\#($0)"# } ?? "")}"#.utf8)
    }

    static func query(above rank: Int) -> [UInt8] {
        let filter = #"[{"fieldName":"rank","comparator":"GREATER_THAN","fieldValue":{"value":\#(rank),"type":"INT64"}}]"#
        let query = #"{"recordType":"Note","filterBy":\#(filter),"sortBy":[{"fieldName":"rank","ascending":true}]}"#
        return Array(#"{"query":\#(query),"zoneID":\#(zone),"resultsLimit":50}"#.utf8)
    }
}
