extension PasswordHasher {
    /// Argon2id cost parameters and the concurrency limit of a ``PasswordHasher``.
    ///
    /// ```swift
    /// let hasher = PasswordHasher(configuration: .interactive)          // 64 MiB, t = 2, 2 at once
    /// let strong = PasswordHasher(configuration: .init(operationsLimit: 3, memoryLimit: 256 << 20))
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// Argon2id passes over memory (`t`, libsodium's `opslimit`); at least 1.
        public var operationsLimit: Int
        /// Memory per hash in bytes (libsodium's `memlimit`, written as `m` KiB in the hash); at least 8 KiB.
        public var memoryLimit: Int
        /// The most hash or verify operations that run at once; further calls wait their turn.
        public var maximumConcurrentOperations: Int

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - operationsLimit: Argon2id passes, at least 1.
        ///   - memoryLimit: Bytes of memory per hash, at least 8192.
        ///   - maximumConcurrentOperations: How many hashes may run at once, at least 1; 2 by default.
        public init(operationsLimit: Int, memoryLimit: Int, maximumConcurrentOperations: Int = 2) {
            precondition(operationsLimit >= 1, "Argon2id needs operationsLimit >= 1, got \(operationsLimit)")
            precondition(operationsLimit <= Int(UInt32.max), "Argon2id operationsLimit \(operationsLimit) is too large")
            precondition(memoryLimit >= 8192, "Argon2id needs memoryLimit >= 8192 bytes, got \(memoryLimit)")
            precondition(
                maximumConcurrentOperations >= 1,
                "maximumConcurrentOperations must be >= 1, got \(maximumConcurrentOperations)"
            )
            self.operationsLimit = operationsLimit
            self.memoryLimit = memoryLimit
            self.maximumConcurrentOperations = maximumConcurrentOperations
        }

        /// libsodium's interactive level: 64 MiB and 2 passes (about 85 ms per hash here), 2 at once.
        public static let interactive = Configuration(operationsLimit: 2, memoryLimit: 64 << 20)

        /// libsodium's moderate level: 256 MiB and 3 passes (about 0.4 s per hash here), 1 at once.
        public static let moderate = Configuration(operationsLimit: 3, memoryLimit: 256 << 20, maximumConcurrentOperations: 1)

        /// The smallest costs Argon2id accepts (1 pass, 8 KiB): for tests only, never for real passwords.
        public static let minimum = Configuration(operationsLimit: 1, memoryLimit: 8192)
    }
}
