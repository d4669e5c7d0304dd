/// The rule for a container identifier, one for the server and the `stratus container` command: it
/// starts with `iCloud.` (as CloudKit's do, `iCloud.com.example.Notes`) and uses only letters,
/// digits, `.`, `-` and `_`.
///
/// ```swift
/// import StratusWire
///
/// func check(_ identifier: String) throws {
///     if let problem = ContainerIdentifier.problem(with: identifier) { throw ContainerIdentifierError(problem) }
/// }
///
/// struct ContainerIdentifierError: Error {
///     let message: String
///     init(_ message: String) { self.message = message }
/// }
/// ```
public enum ContainerIdentifier {
    /// The prefix every container identifier has.
    public static let prefix = "iCloud."

    /// What is wrong with `identifier`, naming the fix; `nil` when it is a valid identifier.
    ///
    /// - Parameter identifier: A container identifier, as a URL path or a command line gives it.
    /// - Returns: The reason it is refused, or `nil`.
    public static func problem(with identifier: String) -> String? {
        // NB: over the UTF-8 bytes, not `Character`s: this runs twice a request, and grapheme
        // breaking with `isLetter`/`isNumber` cost more than the rest of the check. An ASCII letter
        // or digit is one byte, and any byte of a non-ASCII character is refused.
        let allowed = identifier.utf8.allSatisfy(isAllowed)
        if allowed, identifier.utf8.starts(with: prefix.utf8), identifier.utf8.count > prefix.utf8.count { return nil }
        let shown = String(identifier.prefix(200).unicodeScalars.map { $0.isASCII && $0.value >= 0x20 ? Character($0) : "?" })
        var reason = "container identifier '\(shown)' is invalid: it starts with '\(prefix)' and uses letters, digits, '.', '-' and '_'"
        if !identifier.hasPrefix(prefix), allowed, !identifier.isEmpty {
            reason += " (did you mean '\(prefix)\(shown)'?)"
        }
        return reason
    }

    /// Whether `byte` is an ASCII letter or digit, `.`, `-` or `_`.
    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }
}
