import Foundation
import StratusTesting
import StratusWire

/// A CloudKit client over plain sockets (``RawHTTPConnection``): one thread and one
/// connection per request, so many requests really run at once, with no per-host
/// connection limit as URLSession has on Linux.
struct LoopbackCloudKitClient: Sendable {
    var port: UInt16
    var container = TestCloudKitServer.container
    var environment = "development"
    var database = "private"

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// POSTs `body` to a database operation and returns the status and body.
    func post(_ operation: String, _ body: String, environment: String? = nil) async throws -> (status: Int, body: Data) {
        try await post(path: "/database/1/\(container)/\(environment ?? self.environment)/\(database)/\(operation)", body, operation: operation)
    }

    /// POSTs `body` to `path` (an operation of any service) and returns the status and body.
    func post(path: String, _ body: String, operation: String) async throws -> (status: Int, body: Data) {
        try await post(path: path, bytes: Data(body.utf8), operation: operation)
    }

    /// POSTs raw `bytes` to `path` and returns the status and body.
    func post(path: String, bytes: Data, operation: String) async throws -> (status: Int, body: Data) {
        let head =
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\nContent-Length: \(bytes.count)\r\nConnection: close\r\n\r\n"
        let reply = try await RawHTTPConnection.exchange(port: port, bytes: Data(head.utf8) + bytes, timeout: 30)
        guard let status = reply.status else {
            throw Failure(description: "\(operation): no HTTP response (\(reply.raw.count) bytes)")
        }
        return (status, Data(reply.body))
    }

    /// POSTs and decodes a 200 response.
    func send<Response: Decodable>(_ operation: String, _ body: String, as type: Response.Type, environment: String? = nil) async throws -> Response {
        let (status, data) = try await post(operation, body, environment: environment)
        guard status == 200 else {
            throw Failure(description: "\(operation) answered \(status): \(String(decoding: data, as: UTF8.self))")
        }
        return try WireCoding.decode(Response.self, from: data)
    }

    /// `records/modify`: one result per operation.
    func modify(_ operations: [String], zone: String? = nil, environment: String? = nil) async throws -> [RecordResult] {
        try await send("records/modify", WireJSON.modify(operations, zone: zone), as: RecordsModify.Response.self, environment: environment).records
    }

    /// `records/lookup`: one result per name.
    func lookup(_ names: [String], zone: String? = nil) async throws -> [RecordResult] {
        let records = names.map { #"{"recordName":\#(WireJSON.quoted($0))}"# }.joined(separator: ",")
        return try await send("records/lookup", #"{\#(WireJSON.zoneKey(zone))"records":[\#(records)]}"#, as: RecordsLookup.Response.self).records
    }

    /// `zones/modify` creating a custom zone.
    func createZone(_ name: String) async throws {
        let body = #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":\#(WireJSON.quoted(name))}}}]}"#
        let (status, data) = try await post("zones/modify", body)
        guard status == 200, !String(decoding: data, as: UTF8.self).contains("serverErrorCode") else {
            throw Failure(description: "zones/modify answered \(status): \(String(decoding: data, as: UTF8.self))")
        }
    }

    /// One page of `records/changes`.
    func changes(zone: String, token: SyncToken?, limit: Int) async throws -> RecordsChanges.Response {
        let tokenKey = token.map { #""syncToken":\#(WireJSON.quoted($0.rawValue)),"# } ?? ""
        let body = #"{"zoneID":{"zoneName":\#(WireJSON.quoted(zone))},\#(tokenKey)"resultsLimit":\#(limit)}"#
        return try await send("records/changes", body, as: RecordsChanges.Response.self)
    }
}

/// JSON bodies of record operations, written by hand as a client would send them.
enum WireJSON {
    static func quoted(_ text: String) -> String {
        // NB: a String always encodes.
        String(decoding: (try? JSONEncoder().encode(text)) ?? Data(), as: UTF8.self)
    }

    static func zoneKey(_ zone: String?) -> String {
        zone.map { #""zoneID":{"zoneName":\#(quoted($0))},"# } ?? ""
    }

    static func modify(_ operations: [String], zone: String? = nil) -> String {
        #"{\#(zoneKey(zone))"operations":[\#(operations.joined(separator: ","))]}"#
    }

    static func create(_ name: String, type: String = "Note", fields: String = "{}") -> String {
        #"{"operationType":"create","record":{"recordName":\#(quoted(name)),"recordType":\#(quoted(type)),"fields":\#(fields)}}"#
    }

    static func update(_ name: String, tag: String, fields: String) -> String {
        #"{"operationType":"update","record":{"recordName":\#(quoted(name)),"recordChangeTag":\#(quoted(tag)),"fields":\#(fields)}}"#
    }
}

extension RecordResult {
    /// The record, if this is one.
    var asRecord: Record? {
        if case .record(let record) = self { return record }
        return nil
    }

    /// The error, if this is one.
    var asError: RecordFetchError? {
        if case .error(let error) = self { return error }
        return nil
    }
}

/// Runs `body` against a fresh ``TestCloudKitServer`` and a socket client for it, stopping the server afterwards.
func withLoopbackServer<T>(
    backend: RecordStoreBackend, _ body: (TestCloudKitServer, LoopbackCloudKitClient) async throws -> T
) async throws -> T {
    let server = try await TestCloudKitServer.start(backend: backend)
    do {
        let result = try await body(server, LoopbackCloudKitClient(port: server.http.port))
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
