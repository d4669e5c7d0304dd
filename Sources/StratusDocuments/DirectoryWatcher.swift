#if os(Linux)
import Dispatch
public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Watches a directory tree with Linux inotify and reports document paths that changed (the
/// Apple platforms' watcher, `DirectoryWatcher+Dispatch.swift`, has the same interface).
///
/// Every folder gets a watch (new folders as they appear, so nested trees are covered);
/// `IN_MOVED_FROM`/`IN_MOVED_TO` pairs with the same cookie become one ``Event/moved(from:to:)``.
/// The `.stratus` folder is ignored. Events are read on a `DispatchSource` and handed to `handler`
/// in batches (one per `read(2)`).
///
/// ```swift
/// let watcher = try DirectoryWatcher(directory: root) { events in print(events) }
/// // … later
/// watcher.stop()
/// ```
public final class DirectoryWatcher: Sendable {
    private struct State {
        var paths: [Int32: String] = [:]
        /// `IN_MOVED_FROM` events still waiting for their `IN_MOVED_TO` (by cookie), with the drain that saw them.
        var movedFrom: [UInt32: (path: String, isDirectory: Bool, drain: Int)] = [:]
        var drains = 0
    }

    /// How long an unpaired `IN_MOVED_FROM` waits for its `IN_MOVED_TO` (the kernel may queue the pair
    /// across two reads) before it counts as a move out of the tree.
    private static let pairingDelay: DispatchTimeInterval = .milliseconds(50)
    private let queue = DispatchQueue(label: "stratus.documents.inotify")

    private let root: URL
    private let descriptor: Int32
    private let state = Mutex(State())
    private let handler: @Sendable ([Event]) -> Void
    // Safety: dispatch sources are thread-safe; `cancel()` may be called from any thread, repeatedly.
    private nonisolated(unsafe) let source: any DispatchSourceRead

    /// Starts watching `directory` and everything below it.
    ///
    /// - Parameters:
    ///   - directory: The tree's root.
    ///   - handler: Called on a background queue with each batch of events.
    /// - Throws: ``DocumentsError`` with ``DocumentsError/Code/watcher`` when inotify cannot be set up.
    public init(directory: URL, handler: @escaping @Sendable ([Event]) -> Void) throws {
        root = directory
        self.handler = handler
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else {
            throw DocumentsError(.watcher, "inotify_init1 failed: \(String(cString: strerror(errno)))")
        }
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        let fd = descriptor
        source.setCancelHandler { close(fd) }
        do {
            try addWatches(below: "")
        } catch {
            source.resume()  // a suspended source must not be released; cancelling closes the descriptor
            source.cancel()
            throw error
        }
        source.setEventHandler { [weak self] in self?.drain() }
        source.resume()
    }

    deinit { stop() }

    /// Stops watching; no handler call starts after this returns.
    public func stop() {
        source.cancel()
    }

    /// Writes are reported when the writer closes the file (`IN_CLOSE_WRITE`), not at every `IN_MODIFY`,
    /// so a file being written in place is not synced half-way through.
    private static let mask = UInt32(IN_CREATE | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF)

    /// Adds a watch on `relative` and every folder below it.
    private func addWatches(below relative: String) throws {
        let full = relative.isEmpty ? root.path : root.appendingPathComponent(relative).path
        // Below the root, a symbolic link is never followed: a link to `/` (or a loop) must not be watched.
        let follow = relative.isEmpty ? 0 : UInt32(IN_DONT_FOLLOW)
        let wd = inotify_add_watch(descriptor, full, Self.mask | UInt32(IN_ONLYDIR) | follow)
        guard wd >= 0 else {
            if relative.isEmpty {
                throw DocumentsError(.watcher, "inotify_add_watch('\(full)') failed: \(String(cString: strerror(errno)))")
            }
            return  // a folder that vanished meanwhile
        }
        state.withLock { $0.paths[wd] = relative }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: full)) ?? []
        for name in names where !(relative.isEmpty && name == DocumentPath.reservedFolder) {
            let child = relative.isEmpty ? name : relative + "/" + name
            var info = stat()
            if lstat(full + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                try addWatches(below: child)
            }
        }
    }

    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var events: [Event] = []
        let drain = state.withLock { state -> Int in
            state.drains += 1
            return state.drains
        }
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (event, nameLength) = buffer.withUnsafeBytes { raw -> (inotify_event, Int) in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event, Int(event.len))
                }
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let nameBytes = buffer[nameStart..<(nameStart + nameLength)].prefix { $0 != 0 }
                offset = nameStart + nameLength
                handle(event, name: String(decoding: nameBytes, as: UTF8.self), drain: drain, into: &events)
            }
        }
        if state.withLock({ !$0.movedFrom.isEmpty }) {
            queue.asyncAfter(deadline: .now() + Self.pairingDelay) { [weak self] in self?.flushUnpaired(before: drain + 1) }
        }
        if !events.isEmpty { handler(events) }
    }

    /// Reports `IN_MOVED_FROM` events seen in drains before `drain` that found no partner: moves out of the tree.
    private func flushUnpaired(before drain: Int) {
        // Stopped meanwhile: the descriptor is closed (its number may be another watcher's by now).
        guard !source.isCancelled else { return }
        let orphans = state.withLock { state -> [(path: String, isDirectory: Bool)] in
            let old = state.movedFrom.filter { $0.value.drain < drain }
            for cookie in old.keys { state.movedFrom[cookie] = nil }
            return old.values.map { ($0.path, $0.isDirectory) }
        }
        guard !orphans.isEmpty else { return }
        for orphan in orphans where orphan.isDirectory { removeWatches(below: orphan.path) }
        handler(orphans.map { .removed($0.path) })
    }

    private func handle(_ event: inotify_event, name: String, drain: Int, into events: inout [Event]) {
        let mask = event.mask
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            events.append(.overflow)
            return
        }
        if mask & UInt32(IN_IGNORED) != 0 {
            _ = state.withLock { $0.paths.removeValue(forKey: event.wd) }
            return
        }
        guard let folder = state.withLock({ $0.paths[event.wd] }), !name.isEmpty else { return }
        if folder.isEmpty && name == DocumentPath.reservedFolder { return }
        let path = folder.isEmpty ? name : folder + "/" + name
        let isDirectory = mask & UInt32(IN_ISDIR) != 0
        if mask & UInt32(IN_MOVED_FROM) != 0 {
            state.withLock { $0.movedFrom[event.cookie] = (path, isDirectory, drain) }
        } else if mask & UInt32(IN_MOVED_TO) != 0 {
            if let source = state.withLock({ $0.movedFrom.removeValue(forKey: event.cookie) }) {
                events.append(.moved(from: source.path, to: path))
                if isDirectory { renameWatches(from: source.path, to: path) }
            } else {
                events.append(.changed(path))
                if isDirectory { try? addWatches(below: path) }
            }
        } else if mask & UInt32(IN_DELETE) != 0 {
            events.append(.removed(path))
        } else {
            if isDirectory && mask & UInt32(IN_CREATE) != 0 { try? addWatches(below: path) }
            events.append(.changed(path))
        }
    }

    /// A folder moved inside the tree: its watches stay, their paths change.
    private func renameWatches(from old: String, to new: String) {
        state.withLock { state in
            for (wd, path) in state.paths where path == old || path.hasPrefix(old + "/") {
                state.paths[wd] = new + path.dropFirst(old.count)
            }
        }
    }

    /// A folder left the tree: stop watching it.
    private func removeWatches(below old: String) {
        let gone = state.withLock { state in
            state.paths.filter { $0.value == old || $0.value.hasPrefix(old + "/") }.map(\.key)
        }
        for wd in gone { inotify_rm_watch(descriptor, wd) }
    }
}
#endif
