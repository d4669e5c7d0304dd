public import Foundation
public import StratusHTTP

/// Reads a fuzz input as a request: `METHOD PATH[?QUERY]` on the first line, header lines up to an
/// empty line, then the body.
public enum RequestText {
    /// The request the input spells, or `nil` when it has no first line with a method and a path.
    ///
    /// - Parameter input: The bytes.
    /// - Returns: A request as the transport would hand it over (path and query already decoded).
    public static func parse(_ input: Data) -> HTTPRequest? {
        let bytes = [UInt8](input.dropFirst())
        let split = separator(in: bytes)
        let head = String(decoding: bytes[..<split.head], as: UTF8.self)
        let body = Data(bytes[split.body...])
        var lines = head.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
        guard !lines.isEmpty else { return nil }
        let first = lines.removeFirst().split(separator: " ", maxSplits: 1).map(String.init)
        guard first.count == 2, !first[0].isEmpty else { return nil }
        var target = first[1]
        var query: [String: String] = [:]
        if let mark = target.firstIndex(of: "?") {
            for pair in target[target.index(after: mark)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let name = parts[0].removingPercentEncoding ?? parts[0]
                if query[name] == nil { query[name] = parts.count > 1 ? (parts[1].removingPercentEncoding ?? parts[1]) : "" }
            }
            target = String(target[..<mark])
        }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var request = HTTPRequest(method: HTTPMethod(rawValue: first[0]), path: target, query: query, headers: headers, body: body)
        request.remoteAddress = "127.0.0.1"
        request.localAddress = "127.0.0.1:8420"
        return request
    }

    /// Where the head ends (a blank line) and the body starts; no blank line means no body.
    private static func separator(in bytes: [UInt8]) -> (head: Int, body: Int) {
        var index = 0
        while index + 1 < bytes.count {
            if bytes[index] == 10, bytes[index + 1] == 10 { return (index, index + 2) }
            if index + 3 < bytes.count, bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 {
                return (index, index + 4)
            }
            index += 1
        }
        return (bytes.count, bytes.count)
    }
}
