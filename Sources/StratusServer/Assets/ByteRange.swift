import Foundation
import StratusHTTP

/// Single `Range: bytes=…` requests (RFC 9110 §14): whole bodies, partial content, or 416.
enum ByteRange {
    /// The response for `data` given the request's `Range` header.
    ///
    /// One range (`a-b`, `a-`, `-n`) yields 206 with `Content-Range`; a range that
    /// starts past the end yields 416; no header, another unit or several ranges
    /// yield the whole body with 200.
    ///
    /// Asset bytes are whatever a user uploaded, served from the server's own origin (which also
    /// serves the sign-in page), so the response tells browsers never to render them: no MIME
    /// sniffing, a download rather than a page, and a sandbox with nothing allowed should one
    /// render anyway.
    static func response(for data: Data, rangeHeader: String?) -> HTTPResponse {
        var headers: HTTPHeaders = [
            "Content-Type": "application/octet-stream", "Accept-Ranges": "bytes", "Cache-Control": "private, max-age=3600",
            "X-Content-Type-Options": "nosniff", "Content-Disposition": "attachment",
            "Content-Security-Policy": "default-src 'none'; sandbox",
        ]
        let size = data.count
        switch parse(rangeHeader, size: size) {
        case .whole:
            return HTTPResponse(status: .ok, headers: headers, body: data)
        case .unsatisfiable:
            headers.replaceOrAdd("Content-Range", "bytes */\(size)")
            return HTTPResponse(status: HTTPStatus(code: 416), headers: headers)
        case .partial(let range):
            headers.replaceOrAdd("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)")
            return HTTPResponse(status: HTTPStatus(code: 206), headers: headers, body: data.subdata(in: range))
        }
    }

    enum Parsed: Equatable {
        case whole
        case partial(Range<Int>)
        case unsatisfiable
    }

    static func parse(_ header: String?, size: Int) -> Parsed {
        guard let header, header.hasPrefix("bytes=") else { return .whole }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            guard let suffix = Int(last), suffix > 0 else { return last.isEmpty ? .whole : .unsatisfiable }
            guard size > 0 else { return .unsatisfiable }
            return .partial(max(0, size - suffix)..<size)
        }
        guard let start = Int(first), start >= 0 else { return .whole }
        guard start < size else { return .unsatisfiable }
        if last.isEmpty { return .partial(start..<size) }
        guard let end = Int(last), end >= start else { return .whole }
        return .partial(start..<(min(end, size - 1) + 1))
    }
}
