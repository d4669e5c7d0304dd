/// Splits text into the tokens that `CONTAINS_ALL_TOKENS` and `CONTAINS_ANY_TOKENS` match.
///
/// The rule, the same at index time and at query time and for every back end:
/// lowercase the text (Unicode default case mapping), split it on every
/// character that is neither a letter nor a number, drop empty pieces and
/// duplicates. So `"Hello, World — hello-again 42"` has the tokens
/// `hello`, `world`, `again`, `42`. No stemming, no stop words, no accent folding.
///
/// ```swift
/// SearchTokenizer.tokens(in: "Buy oat-milk")   // ["buy", "oat", "milk"]
/// ```
public enum SearchTokenizer {
    /// The distinct tokens of `text`, in order of first appearance.
    ///
    /// - Parameter text: Any string.
    /// - Returns: Lowercased runs of letters and numbers.
    public static func tokens(in text: String) -> [String] {
        var tokens: [String] = []
        var seen: Set<String> = []
        var current = ""
        func flush() {
            guard !current.isEmpty else { return }
            if seen.insert(current).inserted { tokens.append(current) }
            current = ""
        }
        for character in text {
            if character.isLetter || character.isNumber {
                current += character.lowercased()
            } else {
                flush()
            }
        }
        flush()
        return tokens
    }

    /// The distinct tokens of several strings (the members of a STRING_LIST).
    ///
    /// - Parameter texts: Strings.
    /// - Returns: Their tokens, each once.
    public static func tokens(in texts: [String]) -> [String] {
        var seen: Set<String> = []
        return texts.flatMap { tokens(in: $0) }.filter { seen.insert($0).inserted }
    }
}
