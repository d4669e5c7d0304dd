import Foundation
import FuzzSupport
import StratusWire

/// The JSON parser and writer (`JSONValue`).
///
/// Invariants: a parsed document written and parsed again is the same value; writing is canonical
/// (writing the reparsed value gives the same bytes); a refused document is a `WireError` with the
/// `invalidJSON` code, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput.data(bytes, count)
    let parsed: JSONValue
    do {
        parsed = try JSONValue(parsing: input)
    } catch {
        FuzzCheck.that(error.code == .invalidJSON, "a refusal has the invalidJSON code, not \(error.code)", input)
        return 0
    }
    do {
        let written = try parsed.serialized()
        let reparsed = try JSONValue(parsing: written)
        FuzzCheck.that(reparsed == parsed, "parse → write → parse is the identity", input)
        FuzzCheck.that(try reparsed.serialized() == written, "writing is canonical", input)
        let pretty = try JSONValue(parsing: parsed.serialized(prettyPrinted: true))
        FuzzCheck.that(pretty == parsed, "the pretty-printed form parses to the same value", input)
    } catch {
        FuzzCheck.fail("a parsed value could not be written or reparsed: \(error)", input)
    }
    return 0
}

/// Runs libFuzzer on ``fuzzJSON(_:_:)``.
@main
enum Main {
    static func main() { FuzzDriver.run(fuzzJSON) }
}
