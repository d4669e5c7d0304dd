/// Why the sync framework could not do something.
public struct SyncError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure; open, like the other Stratus error codes.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public var rawValue: String
        /// Creates a code.
        ///
        /// - Parameter rawValue: The code's name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// An entity type has neither its own nor a global `syncIdKey`/`changeDateKey`.
        public static let missingKey = Code(rawValue: "missingKey")
        /// An entity's type is not among the controller's entity types.
        public static let unknownEntityType = Code(rawValue: "unknownEntityType")
        /// A local property is not among the entity type's mapped fields.
        public static let unknownKey = Code(rawValue: "unknownKey")
        /// No ``SyncController`` is current for `entity.cloud`.
        public static let noController = Code(rawValue: "noController")
        /// The configuration asks for something this version does not do yet.
        public static let unsupported = Code(rawValue: "unsupported")
        /// The server refused a change for good (it was reported and dropped from the outbox).
        public static let rejected = Code(rawValue: "rejected")
        /// The bookkeeping store holds something it cannot read.
        public static let corruptBookkeeping = Code(rawValue: "corruptBookkeeping")
        /// A conflict could not be resolved after several attempts.
        public static let conflictUnresolved = Code(rawValue: "conflictUnresolved")
        /// A push payload says it is CloudKit's (a `ck` part) but does not decode.
        public static let invalidNotification = Code(rawValue: "invalidNotification")
        /// An entity's sync ID is in ``SyncConfiguration/ignoreKeys``.
        public static let ignoredEntity = Code(rawValue: "ignoredEntity")
        /// An entity's queue is gone (its context was released), so it could not be read or written.
        public static let confinementGone = Code(rawValue: "confinementGone")
        /// The ``SyncController`` was closed (``SyncController/close()``); make a new one to sync again.
        public static let closed = Code(rawValue: "closed")
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, naming the entity, type or record.
    public var message: String
    /// The error underneath, such as a `StratusError`.
    public var underlying: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: What went wrong.
    ///   - underlying: The error underneath.
    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// The code and message.
    public var description: String {
        "SyncError.\(code): \(message)" + (underlying.map { " (\($0))" } ?? "")
    }
}
