public import Foundation
public import StratusHTTP
import StratusLogging
public import StratusServer
import StratusServerPostgres
import StratusServerSQLite
import Synchronization

/// A CloudKit service on a store of its own, answering requests in-process through its router (no
/// sockets), for fuzz targets: one per process, made before the first input.
///
/// ```swift
/// let service = try InProcessService.make(backend: .sqlite)
/// let response = service.answer(HTTPRequest(method: .get, path: "/health"))
/// ```
public final class InProcessService: Sendable {
    /// The storage engine.
    public enum Backend: String, Sendable {
        /// SQLite in a temporary directory.
        case sqlite
        /// PostgreSQL at `STRATUS_POSTGRES_URL`, in a schema of its own.
        case postgres
    }

    /// The container every request may name.
    public static let container = "iCloud.com.example.Fuzz"

    /// The router every request goes through.
    public let router: Router
    /// The service behind it.
    public let service: CloudKitService
    /// The store.
    public let store: any RecordStore

    private init(router: Router, service: CloudKitService, store: any RecordStore) {
        self.router = router
        self.service = service
        self.store = store
    }

    /// Opens a store and starts a service on it in open mode (every request acts as one user).
    ///
    /// - Parameter backend: The store's engine.
    /// - Returns: The service.
    /// - Throws: What opening the store throws.
    public static func make(backend: Backend, authenticated: Bool = false) throws -> InProcessService {
        try blocking {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-fuzz-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let store: any RecordStore
            switch backend {
            case .sqlite:
                store = try await SQLiteRecordStore.open(path: directory.appendingPathComponent("stratus.sqlite").path)
            case .postgres:
                guard let url = ProcessInfo.processInfo.environment["STRATUS_POSTGRES_URL"], !url.isEmpty else {
                    throw FuzzSetupFailure(description: "STRATUS_POSTGRES_URL is not set")
                }
                store = try await PostgresRecordStore.openTemporary(url: url)
            }
            _ = try await store.write { try $0.createContainer(container, createdAt: 0) }
            var configuration = ServiceConfiguration(tokenSecret: Data(repeating: 7, count: 32))
            let clock = Atomic<Int64>(1_750_000_000_000)
            configuration.now = { clock.add(1, ordering: .relaxed).newValue }
            configuration.assets.directory = directory.appendingPathComponent("assets")
            configuration.quotas.defaults = .unlimited
            configuration.authentication.requiresAuthentication = authenticated
            configuration.authentication.passwordHashing = .minimum
            let service = CloudKitService(store: store, accounts: store as? any AccountStore, configuration: configuration, logger: .disabled)
            var router = Router()
            service.register(on: &router)
            return InProcessService(router: router, service: service, store: store)
        }
    }

    /// Answers a request as the HTTP transport would: the head check, then the route.
    ///
    /// - Parameter request: The request, body included.
    /// - Returns: The response.
    public func answer(_ request: HTTPRequest) -> HTTPResponse {
        switch admit(request) {
        case .refused(let response):
            return response
        case .admitted(let admitted):
            defer { admitted.bodySink?.close() }
            switch router.respond(to: admitted) {
            case .now(let response): return response
            case .later(let work): return blocking { await work() }
            }
        }
    }

    private enum Admission {
        case admitted(HTTPRequest)
        case refused(HTTPResponse)
    }

    private func admit(_ request: HTTPRequest) -> Admission {
        var admission = router.admit(request)
        while true {
            switch admission {
            case .buffer(let limit):
                return request.body.count > limit ? .refused(router.reject(request, with: .bodyTooLarge(limit: limit))) : .admitted(request)
            case .stream(let sink):
                if let error = Self.feed(request.body, to: sink) {
                    sink.close()
                    return .refused(router.reject(request, with: error))
                }
                var streamed = request
                streamed.bodySink = sink
                streamed.body = Data()
                return .admitted(streamed)
            case .refuse(let response):
                return .refused(response)
            case .later(let decide):
                admission = blocking { await decide() }
            }
        }
    }

    /// Writes a body into a streaming sink as the transport would, in one piece.
    ///
    /// - Returns: The sink's refusal, or `nil` when it took the body.
    private static func feed(_ body: Data, to sink: any HTTPBodySink) -> HTTPError? {
        let written: HTTPError? = body.withUnsafeBytes { bytes in
            do throws(HTTPError) {
                try sink.write(bytes)
                return nil
            } catch {
                return error
            }
        }
        if let written { return written }
        do throws(HTTPError) {
            try sink.finish()
            return nil
        } catch {
            return error
        }
    }

    /// Sends a JSON body to a database operation of the private database.
    ///
    /// - Parameters:
    ///   - operation: Such as `records/query`.
    ///   - body: The JSON body.
    /// - Returns: The response.
    public func post(_ operation: String, _ body: Data, database: String = "private") -> HTTPResponse {
        answer(HTTPRequest(method: .post, path: "/database/1/\(Self.container)/development/\(database)/\(operation)", body: body))
    }
}

/// Why a fuzz target could not set itself up.
public struct FuzzSetupFailure: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    /// A failure described by `description`.
    public init(description: String) { self.description = description }
}

/// Runs async work to completion from synchronous code (the fuzzer's thread, never a pool thread).
///
/// - Parameter body: The work.
/// - Returns: What it returns.
/// - Throws: What it throws.
public func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let result = await Result { () async throws -> T in try await body() }
        outcome.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    guard let result = outcome.withLock({ $0 }) else { preconditionFailure("blocking work ended without a result") }
    return try result.get()
}

/// ``blocking(_:)`` for work that cannot fail.
public func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let outcome = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let value = await body()
        outcome.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    guard let value = outcome.withLock({ $0 }) else { preconditionFailure("blocking work ended without a result") }
    return value
}

extension Result where Failure == any Error {
    /// The outcome of async work.
    init(_ body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
