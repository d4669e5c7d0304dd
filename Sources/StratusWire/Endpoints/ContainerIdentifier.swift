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
        let allowed = identifier.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") }
        if allowed, identifier.hasPrefix(prefix), identifier.count > prefix.count { return nil }
        let shown = String(identifier.prefix(200).unicodeScalars.map { $0.isASCII && $0.value >= 0x20 ? Character($0) : "?" })
        var reason = "container identifier '\(shown)' is invalid: it starts with '\(prefix)' and uses letters, digits, '.', '-' and '_'"
        if !identifier.hasPrefix(prefix), allowed, !identifier.isEmpty {
            reason += " (did you mean '\(prefix)\(shown)'?)"
        }
        return reason
    }
}
