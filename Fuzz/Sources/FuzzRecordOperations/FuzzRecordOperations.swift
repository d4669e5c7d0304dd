import Foundation
import FuzzSupport
import StratusWire

/// The schema the untagged field values of the inputs are read against, as the server's is.
private let schema = FieldTypeLookup { _, name in
    switch name {
    case "due", "when": .timestamp
    case "price", "ratio": .double
    case "count", "n": .int64
    case "tags": .stringList
    case "scores": .int64List
    case "owner": .reference
    case "place": .location
    case "data": .bytes
    default: nil
    }
}

/// Field-value and record-operation decoding: every request and response body that carries
/// records, zones or subscriptions, with and without a schema for untagged values.
///
/// Invariants: see ``WireRoundTrip``.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecordOperations(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput.data(bytes, count)
    guard let json = try? JSONValue(parsing: input) else { return 0 }
    for fieldTypes in [nil, schema] {
        WireRoundTrip.check(Record.self, json, fieldTypes: fieldTypes, input)
        WireRoundTrip.check(FieldValue.self, json, fieldTypes: fieldTypes, input)
        WireRoundTrip.check(RecordOperation.self, json, fieldTypes: fieldTypes, input)
        WireRoundTrip.check(RecordsModify.Request.self, json, fieldTypes: fieldTypes, input)
        WireRoundTrip.check(RecordsModify.Response.self, json, fieldTypes: fieldTypes, input)
        WireRoundTrip.check(RecordsLookup.Request.self, json, fieldTypes: fieldTypes, input)
        WireRoundTrip.check(RecordsLookup.Response.self, json, fieldTypes: fieldTypes, input)
        WireRoundTrip.check(RecordsQuery.Request.self, json, fieldTypes: fieldTypes, input)
        WireRoundTrip.check(RecordsQuery.Response.self, json, fieldTypes: fieldTypes, input)
        WireRoundTrip.check(RecordsChanges.Request.self, json, fieldTypes: fieldTypes, input)
        WireRoundTrip.check(RecordsChanges.Response.self, json, fieldTypes: fieldTypes, input)
        WireRoundTrip.check(ZoneChanges.Request.self, json, fieldTypes: fieldTypes, input)
        WireRoundTrip.check(ZoneChanges.Response.self, json, fieldTypes: fieldTypes, input)
        WireRoundTrip.check(ZonesModify.Request.self, json, fieldTypes: fieldTypes, input)
        WireRoundTrip.check(SubscriptionsModify.Request.self, json, fieldTypes: fieldTypes, input)
        WireRoundTrip.check(AssetsUpload.Request.self, json, fieldTypes: fieldTypes, input)
        WireRoundTrip.check(ErrorResponse.self, json, fieldTypes: fieldTypes, input)
    }
    return 0
}

/// Runs libFuzzer on ``fuzzRecordOperations(_:_:)``.
@main
enum Main {
    static func main() { FuzzDriver.run(fuzzRecordOperations) }
}
