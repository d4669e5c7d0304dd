import Foundation
import StratusClient
import StratusLogging
@testable import StratusExamples
import StratusStore
import StratusStoreSync
import StratusSync
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// One device of the seed's people app: its own store, delegate, controller and network switch.
struct PeopleDevice {
    let name: String
    let stack: PeopleStack
    let store: PeopleStore
    let sync: SyncController
    let network: SwitchableTransport

    /// Runs `body` in a new background context and saves it all the way to disk.
    func edit<Result: Sendable>(_ body: @escaping @Sendable (ObjectContext) throws -> Result) async throws -> Result {
        let context = stack.newBackgroundContext()
        let result = try await context.perform { context in
            let result = try body(context)
            try context.save()
            return result
        }
        try await context.saveChain()
        return result
    }

    /// Reads the store in a fresh context.
    func read<Result: Sendable>(_ body: @escaping @Sendable (ObjectContext) throws -> Result) async throws -> Result {
        try await stack.container.newBackgroundContext(parent: .rootContext).perform(body)
    }

    /// The people's first names, sorted.
    func firstNames() async throws -> [String] {
        try await read { context in try context.fetch(Person.self).map(\.firstName).sorted() }
    }

    /// The person called `firstName`, described as `first/team/city/skills`.
    func describe(_ firstName: String) async throws -> String? {
        try await read { context in
            guard let person = try context.fetch(Person.self, where: PredicateKey<String>("firstName") == firstName).first else { return nil }
            let skills = person.skills.map(\.title).sorted().joined(separator: ",")
            return "\(person.firstName)/\(person.team?.name ?? "-")/\(person.address?.city ?? "-")/\(skills)"
        }
    }

    /// The number of objects of an entity in the store.
    func count(_ entity: String) async throws -> Int {
        try await read { context in try context.count(for: FetchRequest(entityName: entity)) }
    }
}

/// A real server on loopback and devices of the seed's people app.
final class PeopleWorld: Sendable {
    static let sharedTransport = DefaultTransport.make()
    let server: TestCloudKitServer
    let directory: TemporaryDirectory

    private init(server: TestCloudKitServer, directory: TemporaryDirectory) {
        self.server = server
        self.directory = directory
    }

    static func run(_ body: (PeopleWorld) async throws -> Void) async throws {
        try await TestCloudKitServer.withServer(directoryPrefix: "stratus-people") { server, directory in
            try await body(PeopleWorld(server: server, directory: directory))
        }
    }

    /// A device set up the way the seed's sample does it (``CloudController/setUp(container:store:deviceID:bookkeeping:configure:)``).
    func device(_ name: String, network underlying: (any HTTPTransport)? = nil) async throws -> PeopleDevice {
        let stack = try await PeopleStack(url: directory.url.appendingPathComponent("\(name).store"))
        let store = PeopleStore(stack: stack)
        let network = SwitchableTransport(underlying ?? Self.sharedTransport)
        let clock = server.deviceClock
        let sync = try CloudController.setUp(
            container: server.deviceContainer(transport: network), store: store, deviceID: "device-\(name)",
            bookkeeping: directory.url.appendingPathComponent("\(name).sync")
        ) { configuration in
            configuration.now = clock
            configuration.logger = .disabled
            configuration.reconnectInterval = nil
        }
        return PeopleDevice(name: name, stack: stack, store: store, sync: sync, network: network)
    }
}

/// Counts the `records/modify` requests that save a record named (or holding the value) `watch`ed, all watches together.
final class SaveCounter: HTTPTransport {
    private let count = Mutex(0)
    private let marker = Mutex<String?>(nil)

    /// The record name to count saves of.
    func watch(_ name: String) { marker.withLock { $0 = name } }

    var saves: Int { count.withLock { $0 } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let body = String(decoding: request.body, as: UTF8.self)
        if request.url.path.hasSuffix("/records/modify"), let name = marker.withLock({ $0 }), body.contains("\"\(name)\""),
            body.contains("\"update\"") || body.contains("\"create\"") || body.contains("\"forceUpdate\"")
        {
            count.withLock { $0 += 1 }
        }
        return try await PeopleWorld.sharedTransport.send(request)
    }
}
