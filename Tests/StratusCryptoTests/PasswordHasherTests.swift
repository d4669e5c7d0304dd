import Foundation
import StratusCrypto
@testable import StratusServerCrypto
import Synchronization
import Testing

@Suite struct PasswordHasherTests {
    /// Small costs keep the suite fast; one test uses the real interactive defaults.
    static let fast = PasswordHasher.Configuration(operationsLimit: 1, memoryLimit: 1 << 20)

    /// A hash verifies with the right password and is an Argon2id PHC string.
    @Test func hashVerifiesWithTheRightPassword() async throws {
        let hasher = PasswordHasher(configuration: Self.fast)
        let hash = try await hasher.hash("correct horse battery staple")
        #expect(hash.hasPrefix("$argon2id$v=19$m=1024,t=1,p=1$"))
        #expect(try await hasher.verify("correct horse battery staple", against: hash))
    }

    /// Wrong, empty, truncated or extended passwords don't verify.
    @Test func wrongPasswordsFail() async throws {
        let hasher = PasswordHasher(configuration: Self.fast)
        let hash = try await hasher.hash("hunter2")
        for attempt in ["hunter3", "", "hunter", "hunter2 ", "Hunter2"] {
            #expect(try await !hasher.verify(attempt, against: hash), "\(attempt)")
        }
    }

    /// Each hash has its own salt, so the same password hashes differently.
    @Test func samePasswordGetsDifferentSalts() async throws {
        let hasher = PasswordHasher(configuration: Self.fast)
        let a = try await hasher.hash("same")
        let b = try await hasher.hash("same")
        #expect(a != b)
        #expect(try await hasher.verify("same", against: a))
        #expect(try await hasher.verify("same", against: b))
    }

    /// Empty and non-ASCII passwords work, by UTF-8 bytes without normalization.
    @Test func emptyAndUnicodePasswordsWork() async throws {
        let hasher = PasswordHasher(configuration: .minimum)
        let empty = try await hasher.hash("")
        #expect(try await hasher.verify("", against: empty))
        #expect(try await !hasher.verify(" ", against: empty))

        let composed = try await hasher.hash("caf\u{E9} 🔑")
        #expect(try await hasher.verify("caf\u{E9} 🔑", against: composed))
        #expect(try await !hasher.verify("cafe\u{301} 🔑", against: composed))
    }

    /// The default configuration is libsodium's interactive level: Argon2id, 64 MiB, t = 2.
    @Test func defaultsAreInteractive() async throws {
        let hasher = PasswordHasher()
        #expect(hasher.configuration == .interactive)
        #expect(hasher.configuration.maximumConcurrentOperations == 2)
        let hash = try await hasher.hash("pw")
        #expect(hash.hasPrefix("$argon2id$v=19$m=65536,t=2,p=1$"))
        #expect(try await hasher.verify("pw", against: hash))
        #expect(try hasher.needsRehash(hash) == false)
    }

    /// Hashes made with other costs still verify, and report that they need rehashing.
    @Test func olderCostsVerifyAndNeedRehash() async throws {
        let old = try await PasswordHasher(configuration: .minimum).hash("pw")
        let hasher = PasswordHasher(configuration: Self.fast)
        #expect(try await hasher.verify("pw", against: old))
        #expect(try hasher.needsRehash(old))
        #expect(try hasher.needsRehash(try await hasher.hash("pw")) == false)
    }

    /// Strings that aren't Argon2 hashes throw invalidPasswordHash rather than returning false.
    @Test(arguments: [
        "", "password", "$2b$12$abcdefghijklmnopqrstuv", "$argon2id$", "$argon2id$v=19$m=1024,t=1,p=1$c2FsdA",
        "$argon2id$v=19$m=abc,t=1,p=1$c2FsdHNhbHRzYWx0$aGFzaA", "$argon2d$v=19$m=1024,t=1,p=1$c2FsdHNhbHRzYWx0$aGFzaA",
        "$argon2id$" + String(repeating: "A", count: 200),
    ])
    func malformedHashesThrow(hash: String) async throws {
        let hasher = PasswordHasher(configuration: .minimum)
        await #expect(throws: CryptoError.self) { try await hasher.verify("pw", against: hash) }
        let error = try #require(throws: CryptoError.self) { try hasher.needsRehash(hash) }
        #expect(error.code == .invalidPasswordHash)
    }

    /// A hash made by the reference Argon2 library verifies: libargon2's
    /// `argon2id_hash_encoded(t: 2, m: 65536 KiB, p: 1, "password", salt: "somesalt", hashlen: 32)`.
    @Test func referenceImplementationHashVerifies() async throws {
        let reference = "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc"
        let hasher = PasswordHasher(configuration: .minimum)
        #expect(try await hasher.verify("password", against: reference))
        #expect(try await !hasher.verify("Password", against: reference))
    }

    /// With a limit of 2, six concurrent hashes never run more than 2 at once, and do reach 2.
    @Test func concurrencyIsBoundedByTheLimit() async throws {
        let started = Atomic<Int>(0)
        let hasher = PasswordHasher(
            configuration: .init(operationsLimit: 1, memoryLimit: 1 << 20, maximumConcurrentOperations: 2),
            beforeOperation: {
                // Hold the first operation until a second one starts (or 2 s pass), so the
                // limit is actually reached; later operations pass straight through.
                started.add(1, ordering: .sequentiallyConsistent)
                let deadline = Date().addingTimeInterval(2)
                while started.load(ordering: .sequentiallyConsistent) < 2, Date() < deadline {
                    Thread.sleep(forTimeInterval: 0.001)
                }
                Thread.sleep(forTimeInterval: 0.005)
            }
        )
        let hashes = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<6 {
                group.addTask { try await hasher.hash("password \(index)") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(hashes.count == 6)
        #expect(hasher.gauge.peak <= 2)
        #expect(hasher.gauge.peak == 2, "the two permits were used in parallel")
    }

    /// Verification counts against the same limit as hashing.
    @Test func verificationSharesTheLimit() async throws {
        let hasher = PasswordHasher(
            configuration: .init(operationsLimit: 1, memoryLimit: 8192, maximumConcurrentOperations: 1),
            beforeOperation: { Thread.sleep(forTimeInterval: 0.01) }
        )
        let hash = try await hasher.hash("pw")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let matches = try await hasher.verify("pw", against: hash)
                    #expect(matches)
                }
            }
            for _ in 0..<2 { group.addTask { _ = try await hasher.hash("pw") } }
            try await group.waitForAll()
        }
        #expect(hasher.gauge.peak == 1)
    }

    /// A task cancelled while waiting for its turn throws CancellationError and doesn't take a permit.
    @Test func cancelledWaitersThrowAndReleaseNothing() async throws {
        let started = Atomic<Int>(0)
        let gateOpen = Atomic<Bool>(false)
        let hasher = PasswordHasher(
            configuration: .init(operationsLimit: 1, memoryLimit: 8192, maximumConcurrentOperations: 1),
            beforeOperation: {
                started.add(1, ordering: .sequentiallyConsistent)
                while !gateOpen.load(ordering: .sequentiallyConsistent) { Thread.sleep(forTimeInterval: 0.001) }
            }
        )
        let holder = Task { try await hasher.hash("first") }
        while started.load(ordering: .sequentiallyConsistent) == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let waiter = Task { try await hasher.hash("second") }
        try await Task.sleep(for: .milliseconds(20))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(started.load(ordering: .sequentiallyConsistent) == 1, "the cancelled waiter never ran")
        gateOpen.store(true, ordering: .sequentiallyConsistent)
        _ = try await holder.value
        // The permit came back: another hash can run.
        #expect(try await hasher.verify("third", against: try await hasher.hash("third")))
    }

    /// The presets carry libsodium's documented costs.
    @Test func presetsHaveDocumentedCosts() {
        #expect(PasswordHasher.Configuration.interactive.operationsLimit == 2)
        #expect(PasswordHasher.Configuration.interactive.memoryLimit == 64 * 1024 * 1024)
        #expect(PasswordHasher.Configuration.moderate.memoryLimit == 256 * 1024 * 1024)
        #expect(PasswordHasher.Configuration.minimum.memoryLimit == 8192)
    }
}
