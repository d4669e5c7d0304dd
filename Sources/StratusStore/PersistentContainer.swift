import Dispatch
public import Foundation
public import StratusLogging

/// The whole stack: a model, a SQLite store, a private root context that writes to it, and the main-queue view context.
///
/// ```swift
/// let container = PersistentContainer(name: "Notes", model: model, url: storeURL, logger: logger)
/// try await container.loadPersistentStores()       // opens the store off the caller's thread
///
/// let background = container.newBackgroundContext()
/// try await background.perform { context in
///     context.insert(entity: "Note").setValue("Hello", forKey: "text")
///     try context.save()                          // into the view context
/// }
/// try await background.saveChain()                 // … and on to disk
/// ```
///
/// The hierarchy: the root context (private queue) is attached to the store; the
/// ``viewContext`` (main queue) is its child; ``newBackgroundContext(parent:)`` makes
/// private-queue children of the view context (or of the root).
public final class PersistentContainer: Sendable {
    /// Which context a background context saves into.
    public enum BackgroundParent: Sendable, Hashable {
        /// The view context: saves show up in the UI's context first (the default).
        case viewContext
        /// The root context: saves bypass the view context.
        case rootContext
    }

    /// The container's name, used in messages.
    public let name: String
    /// The model of the store.
    public let model: ObjectModel
    /// Where the store file is.
    public let url: URL
    /// The private-queue context attached to the store: saving it writes to disk.
    public let rootContext: ObjectContext
    /// The main-queue context for the UI, a child of the root context.
    public let viewContext: ObjectContext

    private let coordinator: StoreCoordinator
    private let logger: Logger
    private let options: PersistentStore.Options

    /// Makes the stack; the store is opened by ``loadPersistentStores()``.
    ///
    /// - Parameters:
    ///   - name: A name for messages and context names.
    ///   - model: The model.
    ///   - url: The SQLite file of the store (created if missing, with `-wal` and `-shm` files next to it).
    ///   - readerCount: How many read-only connections read the store concurrently; 4 by default.
    ///   - mmapSize: How many bytes of the file each connection memory-maps, so reads skip a system call
    ///     per page; 256 MiB by default, 0 to read with `pread` only.
    ///   - recordsHistory: Whether root saves record persistent history (``history(after:)``); `true` by default.
    ///   - now: The clock that timestamps history transactions.
    ///   - logger: Where the store and contexts log.
    public init(
        name: String, model: ObjectModel, url: URL, readerCount: Int = 4, mmapSize: Int = 256 << 20, recordsHistory: Bool = true,
        now: @escaping @Sendable () -> Date = { Date() }, logger: Logger = .disabled
    ) {
        self.name = name
        self.model = model
        self.url = url
        self.logger = logger
        options = PersistentStore.Options(
            readerCount: readerCount, mmapSize: mmapSize, recordsHistory: recordsHistory, now: now)
        coordinator = StoreCoordinator(model: model, containerName: name)
        rootContext = ObjectContext(
            concurrencyType: .privateQueue, parent: nil, coordinator: coordinator, logger: logger, name: "\(name).root")
        viewContext = ObjectContext(
            concurrencyType: .mainQueue, parent: rootContext, coordinator: coordinator, logger: logger,
            name: "\(name).viewContext")
    }

    /// Opens the store, creating it and its tables if needed, migrating it if it was written with another model version.
    ///
    /// The file is opened on a background dispatch queue, so even a slow open or a long
    /// migration never blocks the main actor or Swift's cooperative threads.
    ///
    /// **Lightweight migration.** The store records the model it was written with. If that
    /// model's version differs from ``model``'s, the store is migrated in one SQLite
    /// transaction (all or nothing) by comparing the two: entities, attributes and
    /// relationships that were added (an added attribute must be optional or have a default
    /// value), removed, or renamed (the new description's `renamingIdentifier` names the old
    /// one), and attributes that became required (filled with their default value where
    /// `nil`). Anything else — a changed type, a to-one that became to-many, a required
    /// attribute without a default — is refused before anything changes, with an error
    /// naming every such change.
    ///
    /// ```swift
    /// try await container.loadPersistentStores { fraction in
    ///     print("migrating the store: \(Int(fraction * 100)) %")
    /// }
    /// ```
    ///
    /// - Parameter progress: Called (on a background thread) with the fraction of a migration
    ///   done, from 0 to 1; not called when no migration is needed.
    /// - Throws: ``StoreError`` with ``StoreError/Code/incompatibleMigration`` if the store cannot
    ///   be migrated to the model, ``StoreError/Code/modelChangedWithoutNewVersion``
    ///   if the model changed under the same version, or ``StoreError/Code/sqlite``.
    public func loadPersistentStores(progress: (@Sendable (Double) -> Void)? = nil) async throws {
        let url = url
        let model = model
        var loadOptions = options
        loadOptions.progress = progress
        let options = loadOptions
        let logger = logger
        let store = try await Self.offload {
            try PersistentStore.open(url: url, model: model, options: options, logger: logger)
        }
        coordinator.attach(store)
    }

    /// Runs `body` on a background dispatch queue while the caller suspends.
    private static func offload<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try body() })
            }
        }
    }

    // MARK: Persistent history

    /// The history transactions recorded after `token`, oldest first; every kept transaction for `nil`.
    ///
    /// Each root save records its changes, one transaction per ``ObjectContext/transactionAuthor``.
    /// A client of the history keeps the token of the last transaction it handled:
    ///
    /// ```swift
    /// let transactions = try await container.history(after: token)
    /// for transaction in transactions where transaction.author != "sync" {
    ///     for change in transaction.changes { enqueueUpload(change.objectID, change.kind, change.changedKeys) }
    /// }
    /// token = transactions.last?.token ?? token
    /// ```
    ///
    /// - Parameter token: The last transaction already handled, or `nil` for all.
    /// - Returns: The transactions.
    /// - Throws: ``StoreError`` with ``StoreError/Code/historyExpired`` if transactions after
    ///   `token` were pruned, ``StoreError/Code/storeNotLoaded``, or a store error.
    public func history(after token: HistoryToken?) async throws -> [HistoryTransaction] {
        let store = try coordinator.store()
        return try await Self.offload { try store.history(after: token) }
    }

    /// The token of the newest history transaction, or `nil` if none was recorded.
    ///
    /// - Returns: The token.
    /// - Throws: ``StoreError/Code/storeNotLoaded`` or a store error.
    public func lastHistoryToken() async throws -> HistoryToken? {
        let store = try coordinator.store()
        return try await Self.offload { try store.lastHistoryToken() }
    }

    /// Deletes the history transactions up to and including `token`.
    ///
    /// Asking later for the history after an older token fails with ``StoreError/Code/historyExpired``.
    ///
    /// - Parameter token: The newest transaction to delete.
    /// - Throws: ``StoreError/Code/storeNotLoaded`` or a store error.
    public func pruneHistory(through token: HistoryToken) async throws {
        let store = try coordinator.store()
        try await Self.offload { try store.pruneHistory(through: token) }
    }

    /// Deletes the history transactions recorded before `date`.
    ///
    /// - Parameter date: Transactions older than this are deleted.
    /// - Throws: ``StoreError/Code/storeNotLoaded`` or a store error.
    public func pruneHistory(before date: Date) async throws {
        let store = try coordinator.store()
        try await Self.offload { try store.pruneHistory(before: date) }
    }

    /// A new private-queue context whose saves go to the view context (or to the root context).
    ///
    /// - Parameter parent: Which context it saves into; the view context by default.
    /// - Returns: The context.
    public func newBackgroundContext(parent: BackgroundParent = .viewContext) -> ObjectContext {
        ObjectContext(
            concurrencyType: .privateQueue,
            parent: parent == .viewContext ? viewContext : rootContext,
            coordinator: coordinator, logger: logger, name: nil)
    }

    /// Runs `body` on a new background context and returns its result.
    ///
    /// - Parameter body: Uses the context; return IDs, not objects.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func performBackgroundTask<Result: Sendable>(
        _ body: @escaping @Sendable (ObjectContext) throws -> Result
    ) async throws -> Result {
        try await newBackgroundContext().perform(body)
    }

    /// Closes the store; contexts that touch it afterwards get ``StoreError/Code/storeNotLoaded`` errors.
    ///
    /// - Throws: ``StoreError`` if SQLite refuses to close.
    public func close() throws {
        guard let store = coordinator.detach() else { return }
        do {
            try store.close()
        } catch {
            throw StoreError.wrapping(error, "could not close the store at \(url.path)")
        }
    }
}
