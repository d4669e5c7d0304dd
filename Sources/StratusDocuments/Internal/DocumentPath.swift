import Foundation

/// Document paths: relative, `/`-separated, no `.`/`..`/empty components, never inside `.stratus`.
enum DocumentPath {
    /// The hidden folder (state, temporary files, conflict versions) that is never synced.
    static let reservedFolder = ".stratus"

    /// Checks a path an app passed in; returns it normalized (no leading or trailing `/`).
    static func validate(_ path: String) throws -> String {
        let trimmed = path.split(separator: "/", omittingEmptySubsequences: false)
        let components = trimmed.map(String.init)
        guard !path.isEmpty, !path.hasPrefix("/"), !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
            throw DocumentsError(.invalidPath, "a document path is relative, '/'-separated, without empty, '.' or '..' components", path: path)
        }
        guard components.first != reservedFolder else {
            throw DocumentsError(.invalidPath, "'\(reservedFolder)' is the container's private folder and is never synced", path: path)
        }
        return path
    }

    /// The file URL of a document path under `root`.
    static func url(_ path: String, in root: URL) -> URL {
        root.appendingPathComponent(path, isDirectory: false)
    }

    /// The parent folder of a path, `""` at the top level.
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }
}
