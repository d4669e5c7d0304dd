extension DirectoryWatcher {
    /// One thing the watcher saw, as document paths relative to the watched directory.
    public enum Event: Sendable, Hashable {
        /// A file (or folder) was created, or a file written and closed.
        case changed(String)
        /// A file (or folder) was deleted or moved out of the tree.
        case removed(String)
        /// A file (or folder) was renamed or moved inside the tree.
        case moved(from: String, to: String)
        /// The watcher cannot say what changed (the kernel queue overflowed; on Apple platforms, every
        /// change): rescan everything.
        case overflow
    }
}
