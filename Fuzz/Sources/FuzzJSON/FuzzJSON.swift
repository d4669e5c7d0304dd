import Foundation
import FuzzSupport
import StratusWire

/// The JSON parser and writer (`JSONValue`), and the change-feed skim the SDK reads a server's
/// answer with before decoding it (`ZoneChanges.Response.continuation(in:)`).
///
/// Invariants: a parsed document written and parsed again is the same value; writing is canonical
/// (writing the reparsed value gives the same bytes); a refused document is a `WireError` with the
/// `invalidJSON` code, never a crash; the skim never crashes on any bytes, and on a canonical
/// document that decodes as one zone's changes it reads the token, `moreComing` and record count
/// the decoder reads (or gives up).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput.data(bytes, count)
    _ = ZoneChanges.Response.continuation(in: input)
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
        checkSkim(written, input)
    } catch {
        FuzzCheck.fail("a parsed value could not be written or reparsed: \(error)", input)
    }
    return 0
}

/// The skim of a canonical document agrees with its decode wherever both read it.
private func checkSkim(_ canonical: Data, _ input: Data) {
    guard let skim = ZoneChanges.Response.continuation(in: canonical),
        let decoded = try? WireCoding.decode(ZoneChanges.Response.self, from: canonical),
        decoded.zones.count == 1, case .changes(let page) = decoded.zones[0]
    else { return }
    FuzzCheck.that(skim.syncToken == page.syncToken, "the skimmed token is the decoded one", input)
    FuzzCheck.that(skim.moreComing == page.moreComing, "the skimmed moreComing is the decoded one", input)
    FuzzCheck.that(skim.recordCount == page.records.count, "the skimmed record count is the decoded one", input)
}

/// Runs libFuzzer on ``fuzzJSON(_:_:)``.
@main
enum Main {
    static func main() { FuzzDriver.run(fuzzJSON) }
}
