import Foundation

/// One file of the console, embedded in the binary.
struct ConsoleResource: Sendable {
    /// The `Content-Type` it is served with.
    let contentType: String
    /// The file's text, exactly as in the repository.
    let text: String

    /// The bytes served.
    var body: Data { Data(text.utf8) }
}

/// The console's pages, scripts and styles (``all`` is generated: Scripts/embed-console-resources.swift).
enum ConsoleResources {
    /// The resource called `name`, or `nil` (never a path: names hold no `/`).
    static func resource(named name: String) -> ConsoleResource? {
        all[name]
    }
}
