import Foundation
public import StratusServer
public import StratusWire

/// Runs `body` against a fresh server that requires authentication, stopping it afterwards.
///
/// ```swift
/// try await withAuthServer { server in
///     let ada = try await server.signedInUser("ada@example.com")
///     #expect(try await server.exchange("zones/list", method: "GET", query: ada.query).status == 200)
/// }
/// ```
public func withAuthServer(
    backend: RecordStoreBackend = .sqlite, containers: [String] = [TestCloudKitServer.container],
    configure: (inout ServiceConfiguration) -> Void = { _ in }, _ body: (TestCloudKitServer) async throws -> Void
) async throws {
    try await TestCloudKitServer.withStarted(backend: backend, containers: containers, authenticated: true, configure: configure, body)
}

/// Runs `body` against a fresh open-mode server of `backend`, stopping it afterwards.
///
/// ```swift
/// try await withServer(.sqlite) { server in
///     let reply = try await server.post("zones/list", "{}")
///     #expect(reply.status == 200)
/// }
/// ```
public func withServer(
    _ backend: RecordStoreBackend, configure: (inout ServiceConfiguration) -> Void = { _ in },
    _ body: (TestCloudKitServer) async throws -> Void
) async throws {
    try await TestCloudKitServer.withStarted(backend: backend, configure: configure, body)
}

/// JSON bodies written by hand, as a client sends them.
///
/// ```swift
/// try await server.exchange("records/modify", Body.create("n1", zone: "Notes"), query: ada.query)
/// ```
public enum Body {
    /// `text` as a JSON string literal.
    public static func quoted(_ text: String) -> String {
        String(decoding: (try? JSONEncoder().encode(text)) ?? Data(), as: UTF8.self)
    }

    /// `"zoneID":{…},` naming a zone (and its owner), or nothing for `nil`.
    public static func zone(_ name: String?, owner: String? = nil) -> String {
        guard let name else { return "" }
        let ownerKey = owner.map { #","ownerRecordName":\#(quoted($0))"# } ?? ""
        return #""zoneID":{"zoneName":\#(quoted(name))\#(ownerKey)},"#
    }

    /// A `records/modify` creating one `Note` with a `title`.
    public static func create(_ name: String, zone: String? = nil, title: String = "secret") -> String {
        #"{\#(self.zone(zone))"operations":[{"operationType":"create","record":{"recordName":\#(quoted(name)),"recordType":"Note","fields":{"title":{"value":\#(quoted(title))}}}}]}"#
    }

    /// A `records/modify` force-updating one `Note`'s `title`.
    public static func forceUpdate(_ name: String, zone: String? = nil, title: String) -> String {
        #"{\#(self.zone(zone))"operations":[{"operationType":"forceUpdate","record":{"recordName":\#(quoted(name)),"recordType":"Note","fields":{"title":{"value":\#(quoted(title))}}}}]}"#
    }

    /// A `records/modify` force-deleting one record.
    public static func forceDelete(_ name: String, zone: String? = nil) -> String {
        #"{\#(self.zone(zone))"operations":[{"operationType":"forceDelete","record":{"recordName":\#(quoted(name))}}]}"#
    }

    /// A `records/lookup` of one record.
    public static func lookup(_ name: String, zone: String? = nil, owner: String? = nil) -> String {
        #"{\#(self.zone(zone, owner: owner))"records":[{"recordName":\#(quoted(name))}]}"#
    }

    /// A `records/query` of every `Note`.
    public static func query(zone: String? = nil, zoneWide: Bool = false) -> String {
        #"{\#(self.zone(zone))"zoneWide":\#(zoneWide),"query":{"recordType":"Note"}}"#
    }

    /// A `zones/modify` creating one zone.
    public static func createZone(_ name: String) -> String {
        #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":\#(quoted(name))}}}]}"#
    }
}

extension TestCloudKitServer.Reply {
    /// The `reason` of an error body.
    public var reason: String? {
        if case .object(let object) = json, case .string(let reason)? = object["reason"] { return reason }
        return nil
    }

    /// The error code of each item of the `records` (or `zones`) array; `nil` for items that succeeded.
    public func itemCodes(_ key: String = "records") -> [String?] {
        guard case .object(let object) = json, case .array(let items)? = object[key] else { return [] }
        return items.map { item in
            if case .object(let fields) = item, case .string(let code)? = fields["serverErrorCode"] { return code }
            return nil
        }
    }

    /// Values of `key` in each item of `array`.
    public func strings(_ array: String, _ key: String) -> [String] {
        guard case .object(let object) = json, case .array(let items)? = object[array] else { return [] }
        return items.compactMap { item in
            if case .object(let fields) = item, case .string(let value)? = fields[key] { return value }
            return nil
        }
    }

    /// The zone names in a `zones` array.
    public var zoneNames: [String] {
        guard case .object(let object) = json, case .array(let items)? = object["zones"] else { return [] }
        return items.compactMap { item in
            guard case .object(let fields) = item, case .object(let id)? = fields["zoneID"], case .string(let name)? = id["zoneName"] else { return nil }
            return name
        }
    }

    /// The body with the per-request `uuid` removed, to compare two error bodies.
    public var bodyWithoutUUID: JSONValue {
        guard case .object(var object) = json else { return json }
        object["uuid"] = nil
        return .object(object)
    }
}
