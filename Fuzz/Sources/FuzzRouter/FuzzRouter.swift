import Foundation
import FuzzServerSupport
import FuzzSupport
import StratusHTTP
import StratusWire

/// Two services on SQLite: one in open mode (every request acts as one user, so requests reach
/// the handlers), one that requires authentication (requests stop at the credential checks).
private let services: [InProcessService] = {
    do {
        return [try InProcessService.make(backend: .sqlite), try InProcessService.make(backend: .sqlite, authenticated: true)]
    } catch {
        fatalError("the fuzz services did not start: \(error)")
    }
}()

/// The router and every handler behind it, in-process: method, path, query, headers and body
/// from the input.
///
/// The input is an HTTP/1.1-like request: `METHOD PATH[?QUERY]`, header lines, an empty line, then
/// the body. The first byte's low bit picks the open or the authenticated service.
///
/// Invariants: no request gets a 5xx; every refusal under `/database/` is a CloudKit error body
/// (`serverErrorCode` and `reason`) whose HTTP status is the one its code maps to.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRouter(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput.data(bytes, count)
    guard let request = RequestText.parse(input) else { return 0 }
    let service = services[Int(input.first ?? 0) & 1]
    let response = service.answer(request)
    FuzzCheck.that(response.status.code < 500, "\(request.method.rawValue) \(request.path) answered \(response.status.code)", input)
    if response.status.code >= 400, request.path.hasPrefix("/database/") {
        guard let error = try? WireCoding.decode(ErrorResponse.self, from: response.body) else {
            FuzzCheck.fail("a refusal of \(request.path) (\(response.status.code)) is not a CloudKit error body", input)
        }
        FuzzCheck.that(!error.reason.isEmpty, "a refusal names its reason", input)
    }
    return 0
}

/// Runs libFuzzer on ``fuzzRouter(_:_:)``.
@main
enum Main {
    static func main() { FuzzDriver.run(fuzzRouter) }
}
