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
    private let readerCount: Int

    /// Makes the stack; the store is opened by ``loadPersistentStores()``.
    ///
    /// - Parameters:
    ///   - name: A name for messages and context names.
    ///   - model: The model.
    ///   - url: The SQLite file of the store (created if missing, with `-wal` and `-shm` files next to it).
    ///   - readerCount: How many read-only connections read the store concurrently; 4 by default.
    ///   - logger: Where the store and contexts log.
    public init(name: String, model: ObjectModel, url: URL, readerCount: Int = 4, logger: Logger = .disabled) {
        self.name = name
        self.model = model
        self.url = url
        self.logger = logger
        self.readerCount = readerCount
        coordinator = StoreCoordinator(model: model, containerName: name)
        rootContext = ObjectContext(
            concurrencyType: .privateQueue, parent: nil, coordinator: coordinator, logger: logger, name: "\(name).root")
        viewContext = ObjectContext(
            concurrencyType: .mainQueue, parent: rootContext, coordinator: coordinator, logger: logger,
            name: "\(name).viewContext")
    }

    /// Opens the store, creating it and its tables if needed, without blocking the caller's thread.
    ///
    /// The file is opened on a background dispatch queue, so even a slow open never
    /// blocks the main actor or Swift's cooperative threads.
    ///
    /// - Throws: ``StoreError`` with ``StoreError/Code/incompatibleModelVersion`` if the store
    ///   was written with another model version, ``StoreError/Code/modelChangedWithoutNewVersion``
    ///   if the model changed under the same version, or ``StoreError/Code/sqlite``.
    public func loadPersistentStores() async throws {
        let url = url
        let model = model
        let readerCount = readerCount
        let logger = logger
        let store = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(
                    with: Result { try PersistentStore.open(url: url, model: model, readerCount: readerCount, logger: logger) })
            }
        }
        coordinator.attach(store)
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
