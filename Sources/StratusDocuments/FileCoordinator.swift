import Foundation

/// Per-path reader/writer locks, so the app and the sync engine never see a half-written document.
///
/// Many readers or one writer hold a path at a time; a writer waits for readers to finish. Writes
/// through ``DocumentsContainer/coordinateWriting(at:_:)`` also land atomically (temporary file and
/// `rename(2)`), so even an uncoordinated reader sees the old bytes or the new ones, never a mix.
///
/// ```swift
/// let coordinator = FileCoordinator()
/// let text = try coordinator.read("notes.txt") { try String(contentsOf: url, encoding: .utf8) }
/// ```
public final class FileCoordinator: @unchecked Sendable {
    // Safety: `holders` is only read and written while `condition` is locked.
    private let condition = NSCondition()
    /// Readers per path (> 0) or a writer (-1).
    private var holders: [String: Int] = [:]

    /// Creates a coordinator with no path held.
    public init() {}

    /// Runs `body` while holding `path` for reading (other readers may too; writers wait).
    ///
    /// - Parameters:
    ///   - path: The document path.
    ///   - body: The reading work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func read<T>(_ path: String, _ body: () throws -> T) rethrows -> T {
        condition.lock()
        while (holders[path] ?? 0) < 0 { condition.wait() }
        holders[path, default: 0] += 1
        condition.unlock()
        defer { release(path) }
        return try body()
    }

    /// Runs `body` while holding every path in `paths` for writing (alone).
    ///
    /// - Parameters:
    ///   - paths: The document paths (a rename holds both).
    ///   - body: The writing work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func write<T>(_ paths: String..., body: () throws -> T) rethrows -> T {
        let unique = Array(Set(paths))
        condition.lock()
        while unique.contains(where: { holders[$0] != nil }) { condition.wait() }
        for path in unique { holders[path] = -1 }
        condition.unlock()
        defer { for path in unique { release(path) } }
        return try body()
    }

    private func release(_ path: String) {
        condition.lock()
        if let count = holders[path], count > 1 {
            holders[path] = count - 1
        } else {
            holders[path] = nil
        }
        condition.broadcast()
        condition.unlock()
    }
}
