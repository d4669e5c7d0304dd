import Foundation
import StratusClient
import StratusWire

/// `stratus records query|get|save|delete`, `stratus zones list`, `stratus changes`.
enum RecordCommands {
    static let usage = """
        Usage:
          stratus records query <RecordType> [--filter field=value]… [--sort field|-field] [--limit N] [--zone Z]
          stratus records get <recordName> [--zone Z]
          stratus records save <RecordType> <recordName> field=value… [--zone Z]
              typed fields: name:int=3 name:double=2.5 name:bool=true name:timestamp=<ms> name:bytes=<base64>
                            name:strings=a,b name:ints=1,2 name:ref=<recordName>
          stratus records delete <recordName> [--zone Z]
          stratus zones list|create <name>|delete <name>
          stratus changes [--zone Z] [--token T]     records changed in a custom zone, or zones changed in the database
        Common flags: --server --container --env --database --api-token --web-auth-token (or STRATUS_* variables)
        """

    static func records(_ options: ClientOptions, container: Container, output: ClientOutput) async throws {
        let database = container.database(with: try options.databaseScope())
        var words = options.positional
        guard !words.isEmpty else { throw ClientCommandError(usage) }
        let verb = words.removeFirst()
        let zoneID = options.zoneID
        switch verb {
        case "query":
            guard let type = words.first else { throw ClientCommandError("records query needs a record type\n\n\(usage)") }
            let query = Query(
                recordType: type, filters: try (options.repeated["filter"] ?? []).map(parseFilter),
                sorts: (options.repeated["sort"] ?? []).map { $0.hasPrefix("-") ? .descending(String($0.dropFirst())) : .ascending($0) })
            let limit = try options.integer("limit")
            var count = 0
            for try await record in database.allRecords(matching: query, inZoneWith: zoneID) {
                output.line(try RecordOutput(record).json())
                count += 1
                if let limit, count >= limit { break }
            }
        case "get":
            guard let name = words.first else { throw ClientCommandError("records get needs a record name\n\n\(usage)") }
            output.line(try RecordOutput(try await database.record(for: RecordID(recordName: name, zoneID: zoneID))).json())
        case "save":
            guard words.count >= 2 else { throw ClientCommandError("records save needs a record type and name\n\n\(usage)") }
            var record = Record(recordType: words[0], recordID: RecordID(recordName: words[1], zoneID: zoneID))
            for assignment in words.dropFirst(2) {
                let (name, value) = try parseField(assignment, zoneID: zoneID)
                record[name] = value
            }
            let saved = try await database.modifyRecords(saving: [record], deleting: [], savePolicy: .changedKeys, atomically: false)
            guard let result = saved.saveResults[record.recordID] else { throw StratusError(.serverResponseLost, "no result") }
            output.line(try RecordOutput(try result.get()).json())
        case "delete":
            guard let name = words.first else { throw ClientCommandError("records delete needs a record name\n\n\(usage)") }
            try await database.deleteRecord(withID: RecordID(recordName: name, zoneID: zoneID))
            output.line("deleted \(name)")
        default:
            throw ClientCommandError("unknown records command '\(verb)'\n\n\(usage)")
        }
    }

    static func zones(_ options: ClientOptions, container: Container, output: ClientOutput) async throws {
        let database = container.database(with: try options.databaseScope())
        switch (options.positional.first, options.positional.count) {
        case ("create", 2):
            try await database.save(RecordZone(zoneName: options.positional[1]))
            output.line("created \(options.positional[1])")
            return
        case ("delete", 2):
            try await database.deleteRecordZone(withID: ZoneID(zoneName: options.positional[1]))
            output.line("deleted \(options.positional[1])")
            return
        case ("list", _): break
        default: throw ClientCommandError(usage)
        }
        for zone in try await database.allRecordZones().sorted(by: { $0.zoneID.zoneName < $1.zoneID.zoneName }) {
            output.line(zone.zoneID.zoneName)
        }
    }

    static func changes(_ options: ClientOptions, container: Container, output: ClientOutput) async throws {
        let database = container.database(with: try options.databaseScope())
        let token = options.string("token").map { SyncToken(rawValue: $0) }
        if options.string("zone") != nil {
            let changes = try await database.allRecordZoneChanges(inZoneWith: options.zoneID, since: token)
            for record in try changes.modifications().sorted(by: { $0.recordID.recordName < $1.recordID.recordName }) {
                output.line("changed " + (try RecordOutput(record).json()))
            }
            for deletion in changes.deletions { output.line("deleted \(deletion.recordID.recordName)") }
            output.line("token \(changes.changeToken.rawValue)")
        } else {
            let changes = try await database.allDatabaseChanges(since: token)
            for zone in changes.modifications { output.line("changed zone \(zone.zoneName)") }
            for zone in changes.deletions { output.line("deleted zone \(zone.zoneName)") }
            output.line("token \(changes.changeToken.rawValue)")
        }
    }

    /// `field=value` (equality; the value is an integer, a number or text) or `field^=prefix`.
    static func parseFilter(_ text: String) throws -> QueryFilter {
        if let range = text.range(of: "^=") {
            return .beginsWith(.field(String(text[..<range.lowerBound])), String(text[range.upperBound...]))
        }
        guard let equals = text.firstIndex(of: "=") else { throw ClientCommandError("--filter must look like field=value; got '\(text)'") }
        let name = String(text[..<equals])
        let value = String(text[text.index(after: equals)...])
        if let integer = Int64(value) { return .equals(QueryKey<Int64>.field(name), integer) }
        if let number = Double(value) { return .equals(QueryKey<Double>.field(name), number) }
        return .equals(QueryKey<String>.field(name), value)
    }

    /// `name=value` (text) or `name:type=value`.
    static func parseField(_ text: String, zoneID: ZoneID) throws -> (String, FieldValue) {
        guard let equals = text.firstIndex(of: "=") else { throw ClientCommandError("a field must look like name=value; got '\(text)'") }
        let left = text[..<equals]
        let value = String(text[text.index(after: equals)...])
        let parts = left.split(separator: ":", maxSplits: 1).map(String.init)
        let name = parts.first ?? ""
        let type = parts.count > 1 ? parts[1] : "string"
        func bad() -> ClientCommandError { ClientCommandError("'\(value)' is not a valid \(type) for field '\(name)'") }
        switch type {
        case "string": return (name, .string(value))
        case "int":
            guard let number = Int64(value) else { throw bad() }
            return (name, .int64(number))
        case "double":
            guard let number = Double(value) else { throw bad() }
            return (name, .double(number))
        case "bool":
            guard let flag = Bool(value) else { throw bad() }
            return (name, .int64(flag ? 1 : 0))
        case "timestamp":
            guard let milliseconds = Int64(value) else { throw bad() }
            return (name, .timestamp(Timestamp(millisecondsSince1970: milliseconds)))
        case "bytes":
            guard let data = Data(base64Encoded: value) else { throw bad() }
            return (name, .bytes(data))
        case "strings": return (name, .stringList(value.split(separator: ",").map(String.init)))
        case "ints":
            let numbers = value.split(separator: ",").compactMap { Int64($0) }
            guard numbers.count == value.split(separator: ",").count else { throw bad() }
            return (name, .int64List(numbers))
        case "ref": return (name, .reference(Reference(recordName: value, zoneID: zoneID)))
        default: throw ClientCommandError("unknown field type '\(type)'; use int, double, bool, timestamp, bytes, strings, ints or ref")
        }
    }
}

/// A record as one line of JSON.
struct RecordOutput: Encodable {
    var recordName: String
    var zoneName: String
    var recordType: String
    var recordChangeTag: String?
    var fields: [String: FieldValue]

    init(_ record: StratusClient.Record) {
        recordName = record.recordID.recordName
        zoneName = record.recordID.zoneID.zoneName
        recordType = record.recordType
        recordChangeTag = record.recordChangeTag?.rawValue
        fields = record.fields
    }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}

/// Where commands print: standard output in the executable, a buffer in tests.
public struct ClientOutput: Sendable {
    /// Prints one line of results.
    public var line: @Sendable (String) -> Void
    /// Prints one line about the results (a fallback taken, a warning), apart from them: standard error.
    public var warning: @Sendable (String) -> Void

    /// Creates an output.
    ///
    /// - Parameters:
    ///   - line: Prints one line of results.
    ///   - warning: Prints one warning; standard error by default.
    public init(line: @escaping @Sendable (String) -> Void, warning: @escaping @Sendable (String) -> Void = ClientOutput.standardError) {
        self.line = line
        self.warning = warning
    }

    /// Standard output, flushed per line; warnings on standard error.
    public static let standardOutput = ClientOutput { text in
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes a warning line to standard error.
    public static let standardError: @Sendable (String) -> Void = { text in
        FileHandle.standardError.write(Data(("stratus: " + text + "\n").utf8))
    }
}
