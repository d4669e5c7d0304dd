#if canImport(Darwin)
import Darwin
import Dispatch
public import Foundation
import Synchronization

/// Watches a directory tree on Apple platforms: one dispatch file-system source per folder (kqueue
/// `EVFILT_VNODE`), the same interface as the Linux watcher (inotify, `DirectoryWatcher.swift`).
///
/// A folder's source fires when an entry in it is created, removed or renamed; it cannot say which,
/// so every batch is one ``Event/overflow`` and the container rescans (what a rescan finds unchanged
/// costs a `stat` per file). A file rewritten in place without a new directory entry is found by the
/// next sync's scan. New folders get a source as they appear; the `.stratus` folder is ignored.
///
/// ```swift
/// let watcher = try DirectoryWatcher(directory: root) { events in print(events) }
/// // … later
/// watcher.stop()
/// ```
public final class DirectoryWatcher: Sendable {
    /// A folder's dispatch source.
    // Safety: dispatch sources are thread-safe; `cancel()` may be called from any thread, repeatedly.
    private struct Watch: @unchecked Sendable {
        let source: any DispatchSourceFileSystemObject
    }

    private struct State {
        var watches: [String: Watch] = [:]
        var stopped = false
    }

    private let root: URL
    private let handler: @Sendable ([Event]) -> Void
    private let queue = DispatchQueue(label: "stratus.documents.vnode")
    private let state = Mutex(State())

    /// Starts watching `directory` and everything below it.
    ///
    /// - Parameters:
    ///   - directory: The tree's root.
    ///   - handler: Called on a background queue with each batch of events.
    /// - Throws: ``DocumentsError`` with ``DocumentsError/Code/watcher`` when the root cannot be opened.
    public init(directory: URL, handler: @escaping @Sendable ([Event]) -> Void) throws {
        root = directory
        self.handler = handler
        try watch("")
        watchNewFolders(below: "")
    }

    deinit { stop() }

    /// Stops watching; no handler call starts after this returns.
    public func stop() {
        let watches = state.withLock { state -> [Watch] in
            state.stopped = true
            defer { state.watches = [:] }
            return Array(state.watches.values)
        }
        for watch in watches { watch.source.cancel() }
    }

    /// Adds a source on the folder `relative` (the root when empty).
    private func watch(_ relative: String) throws {
        let full = relative.isEmpty ? root.path : root.appendingPathComponent(relative).path
        // O_EVTONLY: a descriptor for events only, which does not keep the volume from unmounting.
        let descriptor = open(full, O_EVTONLY | O_CLOEXEC | O_DIRECTORY | (relative.isEmpty ? 0 : O_NOFOLLOW))
        guard descriptor >= 0 else {
            if relative.isEmpty { throw DocumentsError(.watcher, "cannot open '\(full)' to watch it: \(String(cString: strerror(errno)))") }
            return  // a folder that vanished meanwhile, or a symbolic link
        }
        let source = DispatchSource.makeFileSystemObjectSource(
            fileDescriptor: descriptor, eventMask: [.write, .delete, .rename, .link], queue: queue)
        source.setCancelHandler { close(descriptor) }
        source.setEventHandler { [weak self] in self?.folderChanged() }
        let kept = state.withLock { state -> Bool in
            guard !state.stopped, state.watches[relative] == nil else { return false }
            state.watches[relative] = Watch(source: source)
            return true
        }
        source.resume()
        if !kept { source.cancel() }
    }

    /// Something changed in a folder: watch the folders that appeared, forget those that went, report a rescan.
    private func folderChanged() {
        let gone = state.withLock { state -> [Watch] in
            let missing = state.watches.keys.filter { !$0.isEmpty && !isFolder($0) }
            return missing.compactMap { state.watches.removeValue(forKey: $0) }
        }
        for watch in gone { watch.source.cancel() }
        watchNewFolders(below: "")
        guard !state.withLock({ $0.stopped }) else { return }
        handler([.overflow])
    }

    /// Adds sources on the folders below `relative` that have none.
    private func watchNewFolders(below relative: String) {
        let full = relative.isEmpty ? root.path : root.appendingPathComponent(relative).path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: full)) ?? []
        for name in names where !(relative.isEmpty && name == DocumentPath.reservedFolder) {
            let child = relative.isEmpty ? name : relative + "/" + name
            guard isFolder(child) else { continue }
            if state.withLock({ $0.watches[child] == nil }) { try? watch(child) }
            watchNewFolders(below: child)
        }
    }

    /// Whether `relative` is a folder (not a symbolic link to one).
    private func isFolder(_ relative: String) -> Bool {
        var info = stat()
        return lstat(root.appendingPathComponent(relative).path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}
#endif
