import Foundation
import FuzzSupport
@testable import StratusDocuments

/// The documents path validator (`DocumentPath`), every path from the network goes through.
///
/// Invariants: a valid path is relative, its components are exactly its `/`-separated parts, none
/// is empty, `.` or `..`, none holds a control character or is longer than the limit, and the first
/// is not the reserved folder in any spelling; `validate` returns the path unchanged; the printable
/// form holds no control character.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDocumentPath(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput.data(bytes, count)
    let path = String(decoding: input, as: UTF8.self)
    let printable = DocumentPath.printable(path)
    FuzzCheck.that(!printable.unicodeScalars.contains { $0.properties.generalCategory == .control }, "printable text has no control characters", input)
    guard let components = try? DocumentPath.components(of: path) else { return 0 }
    FuzzCheck.that((try? DocumentPath.validate(path)) == path, "validate returns a valid path unchanged", input)
    FuzzCheck.that(components.joined(separator: "/") == path, "the components are the path's parts", input)
    FuzzCheck.that(!path.hasPrefix("/"), "a valid path is relative", input)
    FuzzCheck.that(path.utf8.count <= DocumentPath.maximumPathBytes, "a valid path is within the length limit", input)
    for component in components {
        FuzzCheck.that(!component.isEmpty && component != "." && component != "..", "no component is empty, . or ..", input)
        FuzzCheck.that(component.utf8.count <= DocumentPath.maximumComponentBytes, "no component is too long", input)
        FuzzCheck.that(!component.unicodeScalars.contains { $0.properties.generalCategory == .control }, "no component holds a control character", input)
    }
    let first = components[0]
    FuzzCheck.that(!DocumentPath.isReserved(first), "the first component is not the reserved folder", input)
    FuzzCheck.that(first.lowercased() != DocumentPath.reservedFolder, "not even in another case", input)
    return 0
}

/// Runs libFuzzer on ``fuzzDocumentPath(_:_:)``.
@main
enum Main {
    static func main() { FuzzDriver.run(fuzzDocumentPath) }
}
