import Foundation

extension HTTPRequest {
    /// The value of the cookie `name` in the request's `Cookie` headers (the first one when it
    /// repeats), or `nil`.
    ///
    /// ```swift
    /// let session = request.cookie(named: "stratus_console")
    /// ```
    ///
    /// - Parameter name: The cookie's name, compared exactly.
    /// - Returns: The value, spaces trimmed.
    public func cookie(named name: String) -> String? {
        for header in headers.values(for: "Cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }
}
