import Foundation
import FuzzServerSupport
import FuzzSupport
@testable import StratusServer
import StratusWire

/// One back end's service with the seed records saved, and the records as the server stored them.
private struct Backend {
    let name: String
    let service: InProcessService
    let stored: [StoredRecord]

    static func start(_ kind: InProcessService.Backend) throws -> Backend {
        let service = try InProcessService.make(backend: kind)
        let save = RecordsModify.Request(operations: SeedRecords.records.map { RecordOperation.forceReplace($0) }, atomic: false)
        let response = service.post("records/modify", try WireCoding.encode(save))
        let saved = try WireCoding.decode(RecordsModify.Response.self, from: response.body)
        let stored = saved.records.compactMap { result -> StoredRecord? in
            guard case .record(let record) = result else { return nil }
            return SeedRecords.stored(record)
        }
        guard stored.count == SeedRecords.records.count else {
            throw FuzzSetupFailure(description: "\(kind): the seed records were not all saved: \(String(decoding: response.body, as: UTF8.self))")
        }
        return Backend(name: kind.rawValue, service: service, stored: stored)
    }
}

/// SQLite always; PostgreSQL too when `STRATUS_POSTGRES_URL` names a server (`make fuzz` starts one).
private let backends: [Backend] = {
    do {
        var backends = [try Backend.start(.sqlite)]
        if ProcessInfo.processInfo.environment["STRATUS_POSTGRES_URL"].map({ !$0.isEmpty }) == true {
            backends.append(try Backend.start(.postgres))
        }
        return backends
    } catch {
        fatalError("the fuzz back ends did not start: \(error)")
    }
}()

/// Query filters, their compilation to SQL and its execution, on SQLite and PostgreSQL.
///
/// The input is a `records/query` body; its record type, zone and marker are replaced so it
/// searches the seed records (``SeedRecords``), and every page is followed.
///
/// Invariants: a query the server takes returns exactly the records the in-memory evaluator of
/// subscriptions (`RecordFilterEvaluator`) keeps, each once; both back ends take or refuse the same
/// queries; a refusal is a 400 with a CloudKit error body, never a 5xx.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQueryFilter(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput.data(bytes, count)
    guard var request = try? WireCoding.decode(RecordsQuery.Request.self, from: input) else { return 0 }
    request.query.recordType = "Item"
    request.zoneID = nil
    request.zoneWide = nil
    request.continuationMarker = nil
    if let limit = request.resultsLimit { request.resultsLimit = max(1, min(limit, 200)) }
    let filters = request.query.filterBy ?? []
    var outcomes: [String: [String]?] = [:]
    for backend in backends {
        let names = allNames(request, on: backend, input)
        outcomes[backend.name] = names
        guard let names else { continue }
        let expected = backend.stored.filter { RecordFilterEvaluator.matches(filters, $0) }.map(\.recordName).sorted()
        FuzzCheck.that(
            names.sorted() == expected,
            "\(backend.name) returned \(names.sorted()) where the evaluator keeps \(expected)", input)
        FuzzCheck.that(Set(names).count == names.count, "\(backend.name) returned a record twice: \(names)", input)
    }
    if let sqlite = outcomes["sqlite"], let postgres = outcomes["postgres"] {
        FuzzCheck.that((sqlite == nil) == (postgres == nil), "SQLite and PostgreSQL disagree on taking the query", input)
    }
    return 0
}

/// Every page's record names, or `nil` when the server refused the query.
private func allNames(_ request: RecordsQuery.Request, on backend: Backend, _ input: Data) -> [String]? {
    var request = request
    var names: [String] = []
    for page in 0..<50 {
        guard let body = try? WireCoding.encode(request) else { return nil }
        let response = backend.service.post("records/query", body)
        guard response.status.code == 200 else {
            FuzzCheck.that(response.status.code == 400, "\(backend.name) refused a query with \(response.status.code), not 400", input)
            FuzzCheck.that((try? WireCoding.decode(ErrorResponse.self, from: response.body)) != nil, "a refusal is a CloudKit error", input)
            FuzzCheck.that(page == 0, "\(backend.name) refused its own continuation marker", input)
            return nil
        }
        guard let answer = try? WireCoding.decode(RecordsQuery.Response.self, from: response.body) else {
            FuzzCheck.fail("\(backend.name) answered a query with a body that is not a query response", input)
        }
        for result in answer.records {
            guard case .record(let record) = result, let name = record.recordName else {
                FuzzCheck.fail("\(backend.name) answered a query with a per-record error: \(result)", input)
            }
            names.append(name)
        }
        guard let marker = answer.continuationMarker else { return names }
        request.continuationMarker = marker
    }
    FuzzCheck.fail("\(backend.name) kept paging past 50 pages over \(SeedRecords.records.count) records", input)
}

/// Runs libFuzzer on ``fuzzQueryFilter(_:_:)``.
@main
enum Main {
    static func main() { FuzzDriver.run(fuzzQueryFilter) }
}
