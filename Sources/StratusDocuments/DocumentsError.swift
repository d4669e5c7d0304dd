/// Why a documents-container operation failed: a code, a message naming the problem, the path
/// involved and the underlying error.
///
/// ```swift
/// do {
///     try await documents.download("Reports/q3.pdf")
/// } catch let error as DocumentsError where error.code == .notFound {
///     print("no such document:", error.message)
/// }
/// ```
public struct DocumentsError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is (an open set of codes).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public var rawValue: String
        /// Creates a code.
        ///
        /// - Parameter rawValue: The code's name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A path is not a valid document path (absolute, `..`, the reserved `.stratus` folder…).
        public static let invalidPath = Code(rawValue: "invalidPath")
        /// A valid path cannot be used on this device: a folder on the way is a symbolic link or a
        /// file, or a folder, link or special file is where the document goes.
        public static let pathBlocked = Code(rawValue: "pathBlocked")
        /// No document or version with that path or ID.
        public static let notFound = Code(rawValue: "notFound")
        /// A local file or directory could not be read or written.
        public static let fileSystem = Code(rawValue: "fileSystem")
        /// The local state database failed.
        public static let localState = Code(rawValue: "localState")
        /// A record from the server lacks a field or holds a bad value.
        public static let badRecord = Code(rawValue: "badRecord")
        /// Downloaded bytes do not match the document's content hash.
        public static let contentMismatch = Code(rawValue: "contentMismatch")
        /// inotify could not be set up.
        public static let watcher = Code(rawValue: "watcher")
        /// Another process (or another container in this one) owns the folder: one syncs a folder at a time.
        public static let folderInUse = Code(rawValue: "folderInUse")
        /// The container was opened read-only (``DocumentsContainer/Configuration/opensReadOnly``).
        public static let readOnly = Code(rawValue: "readOnly")
        /// A file this device has not synced (new, or changed since) is where the engine would write:
        /// it is left alone, and the change waits for the next sync (which uploads that file first).
        public static let occupied = Code(rawValue: "occupied")
        /// The container was closed (``DocumentsContainer/close()``): open a new one.
        public static let closed = Code(rawValue: "closed")

        /// The code's name.
        public var description: String { rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// A message naming the problem.
    public var message: String
    /// The document path involved, if any.
    public var path: String?
    /// The error that caused this one, if any.
    public var underlying: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: A message naming the problem.
    ///   - path: The document path involved.
    ///   - underlying: The cause.
    public init(_ code: Code, _ message: String, path: String? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.underlying = underlying
    }

    /// The code, the message and the path.
    public var description: String {
        "DocumentsError.\(code): \(message)" + (path.map { " (path '\($0)')" } ?? "")
    }
}
