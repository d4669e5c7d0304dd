import Foundation

/// Document paths: the one validator every path goes through, whether an app passed it in, the scan
/// found it, or a record from the network carries it.
///
/// A valid path is relative and `/`-separated; its components are not empty, `.` or `..`, hold no
/// control character (NUL, newline, escape, DEL, C1) and are at most ``maximumComponentBytes`` bytes
/// of UTF-8; the whole path is at most ``maximumPathBytes`` bytes; its first component is not the
/// reserved `.stratus` folder in any spelling a case- or normalization-insensitive file system
/// would take for it. Validation only judges the text: ``DocumentTree`` then resolves it below the
/// root without following symbolic links.
enum DocumentPath {
    /// The hidden folder (state, temporary files, conflict versions) that is never synced.
    static let reservedFolder = ".stratus"
    /// The longest component in bytes (`NAME_MAX`); longer names fail in every file system call.
    static let maximumComponentBytes = 255
    /// The longest path in bytes, so root + path stays well within `PATH_MAX` for tools that use full paths.
    static let maximumPathBytes = 1024

    /// Checks a path; returns it unchanged when valid.
    ///
    /// - Parameter path: A document path.
    /// - Returns: `path`.
    /// - Throws: ``DocumentsError/Code/invalidPath`` naming the rule the path breaks.
    static func validate(_ path: String) throws -> String {
        _ = try components(of: path)
        return path
    }

    /// The components of a valid path.
    ///
    /// - Throws: ``DocumentsError/Code/invalidPath`` naming the rule the path breaks.
    static func components(of path: String) throws -> [String] {
        func invalid(_ reason: String) -> DocumentsError {
            DocumentsError(.invalidPath, "a document path \(reason)", path: printable(path))
        }
        guard !path.isEmpty else { throw invalid("is not empty") }
        guard !path.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw invalid("holds no control characters (NUL, newline, escape…)")
        }
        guard !path.hasPrefix("/") else { throw invalid("is relative to the synced folder, not absolute") }
        guard path.utf8.count <= maximumPathBytes else { throw invalid("has at most \(maximumPathBytes) bytes") }
        let components = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if let bad = components.first(where: { $0.isEmpty || $0 == "." || $0 == ".." }) {
            throw invalid("has no \(bad.isEmpty ? "empty" : "'\(bad)'") components")
        }
        if let long = components.first(where: { $0.utf8.count > maximumComponentBytes }) {
            throw invalid("has no component longer than \(maximumComponentBytes) bytes (one has \(long.utf8.count))")
        }
        if let first = components.first, isReserved(first) {
            throw DocumentsError(
                .invalidPath, "'\(reservedFolder)' is the container's private folder and is never synced", path: printable(path))
        }
        return components
    }

    /// Whether a top-level name is the reserved folder, also as a case-insensitive or
    /// normalization-insensitive file system (or one that ignores default-ignorable code points,
    /// like HFS+) would see it: `.STRATUS`, `.ſtratus`, `.stra\u{200C}tus`.
    static func isReserved(_ name: String) -> Bool {
        var kept = String.UnicodeScalarView()
        kept.append(contentsOf: name.unicodeScalars.filter { !$0.properties.isDefaultIgnorableCodePoint })
        let folded = String(kept).precomposedStringWithCanonicalMapping.folding(options: [.caseInsensitive], locale: nil)
        return folded == reservedFolder
    }

    /// `text` safe to print or log: control characters escaped as `\u{…}`, cut at 200 characters.
    static func printable(_ text: String, limit: Int = 200) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(limit) {
            if scalar.properties.generalCategory == .control {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return text.unicodeScalars.count > limit ? out + "…" : out
    }

    /// The file URL of a document path under `root` (for callers that hand a URL to an app).
    static func url(_ path: String, in root: URL) -> URL {
        root.appendingPathComponent(path, isDirectory: false)
    }

    /// The form two paths are compared in: Unicode NFC (precomposed).
    ///
    /// Linux keeps a name's bytes as given, so `café` in NFC and in NFD are two files there, while
    /// macOS and Swift's `==` take them for one name. The engine follows Swift: two paths with one key
    /// are one document path (the state database is keyed by it, and two records whose paths share a
    /// key are a collision like two records with one path). The bytes still matter for the file system:
    /// a document's file has exactly its record's spelling (``sameSpelling(_:_:)``).
    static func key(_ path: String) -> String {
        path.precomposedStringWithCanonicalMapping
    }

    /// Whether two paths are the same bytes (not merely the same name under ``key(_:)``).
    static func sameSpelling(_ first: String, _ second: String) -> Bool {
        first.utf8.elementsEqual(second.utf8)
    }

    /// The parent folder of a path, `""` at the top level.
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }
}
