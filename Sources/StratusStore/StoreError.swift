import StratusSQLite

/// An error from the object store: an invalid model, a store that cannot be opened, or a save that fails validation.
///
/// The ``code`` is open: new codes can be added without breaking `switch`es that have a
/// `default`. Match one with `catch let error as StoreError where error.code == .deleteDenied`.
///
/// Misuse (touching an object from the wrong queue, an unknown key, a value of the
/// wrong type) is not thrown: it stops the program with a message naming the problem.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What kind of problem the error reports.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's name.
        public var rawValue: String

        /// Makes a code from its name.
        ///
        /// - Parameter rawValue: The name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The code's name.
        public var description: String { rawValue }

        /// The model is inconsistent (see the message for every problem).
        public static let invalidModel = Code(rawValue: "invalidModel")
        /// The store was written with a model version this program does not have.
        public static let incompatibleModelVersion = Code(rawValue: "incompatibleModelVersion")
        /// The store was written with a different model under the same version identifier.
        public static let modelChangedWithoutNewVersion = Code(rawValue: "modelChangedWithoutNewVersion")
        /// The store has not been loaded yet (``PersistentContainer/loadPersistentStores()``), or was closed.
        public static let storeNotLoaded = Code(rawValue: "storeNotLoaded")
        /// A non-optional attribute or to-one relationship is `nil` at save.
        public static let missingValue = Code(rawValue: "missingValue")
        /// A deleted object has objects in a relationship whose delete rule is ``DeleteRule/deny``.
        public static let deleteDenied = Code(rawValue: "deleteDenied")
        /// A save would store two objects with the same values for a uniqueness constraint.
        public static let uniquenessViolation = Code(rawValue: "uniquenessViolation")
        /// No object has the ID (it was deleted, or never saved).
        public static let objectNotFound = Code(rawValue: "objectNotFound")
        /// A stored value does not fit its attribute's type (the file was changed outside the store).
        public static let invalidStoredValue = Code(rawValue: "invalidStoredValue")
        /// A save conflicted with changes saved meanwhile and the merge policy is ``MergePolicy/error``;
        /// ``StoreError/conflicts`` lists the objects.
        public static let mergeConflict = Code(rawValue: "mergeConflict")
        /// The history asked for has been pruned: the token is older than the oldest transaction kept.
        public static let historyExpired = Code(rawValue: "historyExpired")
        /// The store cannot be migrated to this program's model (the message names every incompatible change).
        public static let incompatibleMigration = Code(rawValue: "incompatibleMigration")
        /// SQLite failed; ``StoreError/underlying`` holds the `SQLiteError`.
        public static let sqlite = Code(rawValue: "sqlite")
    }

    /// What kind of problem this is.
    public var code: Code
    /// A sentence naming the problem.
    public var message: String
    /// The entity concerned, if any.
    public var entityName: String?
    /// The attribute or relationship concerned, if any.
    public var key: String?
    /// The object concerned, if any.
    public var objectID: ObjectID?
    /// The error that caused this one, if any (such as an `SQLiteError`).
    public var underlying: (any Error & Sendable)?
    /// For ``Code/mergeConflict``: every conflicting object.
    public var conflicts: [MergeConflict] = []

    /// Makes an error.
    ///
    /// - Parameters:
    ///   - code: What kind of problem.
    ///   - message: A sentence naming it.
    ///   - entityName: The entity concerned.
    ///   - key: The property concerned.
    ///   - objectID: The object concerned.
    ///   - underlying: The cause.
    public init(
        code: Code, message: String, entityName: String? = nil, key: String? = nil, objectID: ObjectID? = nil,
        underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.entityName = entityName
        self.key = key
        self.objectID = objectID
        self.underlying = underlying
    }

    /// The code and message, with the cause.
    public var description: String {
        var text = "\(code): \(message)"
        if let underlying {
            text += " (\(underlying))"
        }
        return text
    }
}

extension StoreError {
    /// `error` if it is a `StoreError`, else a ``Code/sqlite`` error saying what failed and holding `error`.
    static func wrapping(_ error: any Error, _ failure: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? SQLiteError {
            return StoreError(code: .sqlite, message: "\(failure): \(error.message)", underlying: error)
        }
        if let error = error as? SQLiteMigrationError {
            return StoreError(code: .incompatibleModelVersion, message: "\(failure): \(error)", underlying: error)
        }
        return StoreError(code: .sqlite, message: "\(failure): \(error)")
    }
}
