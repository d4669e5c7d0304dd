public import Foundation

/// A fresh directory under the system temporary directory, removed by ``remove()`` or when released.
///
/// ```swift
/// let directory = try TemporaryDirectory()
/// defer { directory.remove() }
/// try Data("draft".utf8).write(to: URL(fileURLWithPath: directory.path("note.txt")))
/// ```
///
/// The name is made unique by `mkdtemp(3)`, so parallel tests never share a directory.
public final class TemporaryDirectory: Sendable {
    /// The directory's URL.
    public let url: URL

    /// Creates a new, empty directory.
    ///
    /// - Parameters:
    ///   - prefix: The start of the directory name.
    ///   - parent: Where to make it (a memory file system, say); the system temporary directory by default.
    /// - Throws: `CocoaError` if the directory cannot be created.
    public init(prefix: String = "stratus-test", in parent: URL? = nil) throws {
        let template = (parent ?? FileManager.default.temporaryDirectory).appendingPathComponent("\(prefix)-XXXXXX").path
        var bytes = Array(template.utf8CString)
        let created = bytes.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return mkdtemp(base) != nil
        }
        guard created else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: template])
        }
        let path = bytes.withUnsafeBufferPointer { buffer in
            String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        url = URL(fileURLWithPath: path, isDirectory: true)
    }

    deinit {
        remove()
    }

    /// The path of the directory itself.
    public var path: String { url.path }

    /// The path of `name` inside the directory (the file is not created).
    ///
    /// - Parameter name: A file name.
    /// - Returns: The full path.
    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// Deletes the directory and everything in it; does nothing if it is already gone.
    public func remove() {
        // NB: removal failing (already removed) is not a test failure; leftovers live in /tmp.
        do {
            try FileManager.default.removeItem(at: url)
        } catch {}
    }
}
