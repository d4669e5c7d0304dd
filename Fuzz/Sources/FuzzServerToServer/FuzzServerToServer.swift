import Foundation
import FuzzSupport
import StratusCrypto
import StratusHTTP
@testable import StratusServer

/// A fixed key: every signature the fuzzer makes up is checked against it.
private let key: P256PrivateKey? = try? P256PrivateKey()

/// Server-to-server request headers and dates: the strict ISO 8601 date parser, the signed path,
/// the replay identity of a signature, signature verification of made-up values, and the one-pass
/// header scan of the authenticator.
///
/// The input is newline-separated fields: date, signature, path, key ID, then the body.
///
/// Invariants: a date that parses is written back exactly as it came and is acceptable at its own
/// moment; the signed path is a fixed point and keeps no query; the replay identity is a function
/// of its input; a made-up signature never verifies; the header scan finds what a case-insensitive
/// lookup of the first header of each name finds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServerToServer(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput.data(bytes, count)
    let fields = FuzzInput.fields(input, count: 5)
    let (date, signature, path, keyID, body) = (fields[0], fields[1], fields[2], fields[3], Data(fields[4].utf8))
    checkDate(date, input)
    let signed = ServerToServerSignature.signedPath(path)
    FuzzCheck.that(ServerToServerSignature.signedPath(signed) == signed, "the signed path is a fixed point", input)
    FuzzCheck.that(!signed.contains("?") && !signed.contains("#"), "the signed path has no query or fragment", input)
    let identity = ServerToServerSignature.replayIdentity(ofSignature: signature, keyID: keyID)
    FuzzCheck.that(identity == ServerToServerSignature.replayIdentity(ofSignature: signature, keyID: keyID), "the replay identity is a function", input)
    if let key {
        let forged = ServerToServerSignature.isValidSignature(signature, date: date, body: body, path: path, publicKey: key.publicKey)
        FuzzCheck.that(!forged, "a made-up signature does not verify", input)
    }
    checkHeaderScan(fields, input)
    return 0
}

private func checkDate(_ text: String, _ input: Data) {
    guard let date = ServerToServerSignature.date(from: text) else { return }
    FuzzCheck.that(ServerToServerSignature.dateString(from: date) == text, "a parsed date is written back as it came", input)
    FuzzCheck.that(ServerToServerSignature.isDateAcceptable(text, now: date), "a date is acceptable at its own moment", input)
}

/// The header names come from the fields too, in every case the fields spell them.
private func checkHeaderScan(_ fields: [String], _ input: Data) {
    let names = [
        ServerToServerSignature.keyIDHeaderName, ServerToServerSignature.dateHeaderName, ServerToServerSignature.signatureHeaderName,
    ]
    var headers = HTTPHeaders()
    for (index, field) in fields.prefix(4).enumerated() {
        // A field starting with a header name (any case) and ':' becomes that header; others go in as given.
        if let colon = field.firstIndex(of: ":") {
            headers.add(String(field[..<colon]), String(field[field.index(after: colon)...]))
        } else {
            headers.add(names[index % names.count], field)
        }
    }
    let scanned = Authenticator.SignatureHeaders(headers)
    FuzzCheck.that(scanned.keyID == headers[names[0]], "the scan finds the key ID a lookup finds", input)
    FuzzCheck.that(scanned.date == headers[names[1]], "the scan finds the date a lookup finds", input)
    FuzzCheck.that(scanned.signature == headers[names[2]], "the scan finds the signature a lookup finds", input)
}

/// Runs libFuzzer on ``fuzzServerToServer(_:_:)``.
@main
enum Main {
    static func main() { FuzzDriver.run(fuzzServerToServer) }
}
