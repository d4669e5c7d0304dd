public import Foundation

/// A position in the persistent history: the transaction it names and everything before it.
///
/// Tokens increase with every transaction and are never reused, even after pruning. Keep
/// the token of the last transaction you processed (it is `Codable`), and ask for the
/// transactions after it next time:
///
/// ```swift
/// import StratusStore
///
/// func changes(of container: PersistentContainer, after lastToken: HistoryToken?) async throws -> (changes: [HistoryChange], next: HistoryToken?) {
///     let transactions = try await container.history(after: lastToken)
///     let changes = transactions.filter { $0.author != "sync" }.flatMap(\.changes)  // another author's writes
///     return (changes, transactions.last?.token ?? lastToken)
/// }
/// ```
public struct HistoryToken: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The transaction number.
    public let rawValue: Int64

    /// Makes a token from a transaction number.
    ///
    /// - Parameter rawValue: The number.
    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }

    /// Orders tokens by transaction.
    ///
    /// - Parameters:
    ///   - lhs: A token.
    ///   - rhs: Another token.
    /// - Returns: Whether `lhs` names an earlier transaction.
    public static func < (lhs: HistoryToken, rhs: HistoryToken) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// Encodes the token as its number.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Decodes a token encoded by ``encode(to:)``.
    ///
    /// - Parameter decoder: The decoder.
    /// - Throws: What the decoder throws.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int64.self)
    }

    /// `"history#42"`.
    public var description: String { "history#\(rawValue)" }
}

/// What a root save did, for one author: the objects it inserted, updated and deleted.
///
/// A root save that carries changes of several authors (contexts with different
/// ``ObjectContext/transactionAuthor``s) records one transaction per author, in one
/// SQLite transaction.
public struct HistoryTransaction: Sendable, Hashable {
    /// The transaction's position in the history.
    public var token: HistoryToken
    /// The ``ObjectContext/transactionAuthor`` of the context that made the changes, or `nil`.
    public var author: String?
    /// When the root context saved.
    public var timestamp: Date
    /// The changed objects.
    public var changes: [HistoryChange]

    /// Makes a transaction description.
    ///
    /// - Parameters:
    ///   - token: Its position.
    ///   - author: Its author.
    ///   - timestamp: When it was saved.
    ///   - changes: The changed objects.
    public init(token: HistoryToken, author: String?, timestamp: Date, changes: [HistoryChange]) {
        self.token = token
        self.author = author
        self.timestamp = timestamp
        self.changes = changes
    }
}

/// One object's change in a ``HistoryTransaction``.
public struct HistoryChange: Sendable, Hashable {
    /// What happened to the object.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The object was inserted.
        case inserted
        /// Some of its properties changed (see ``HistoryChange/changedKeys``).
        case updated
        /// The object was deleted.
        case deleted
    }

    /// The object (its permanent ID).
    public var objectID: ObjectID
    /// What happened.
    public var kind: Kind
    /// For ``Kind/updated``: the attributes and relationships that changed (by this transaction's author).
    /// Empty for insertions and deletions.
    public var changedKeys: Set<String>

    /// Makes a change description.
    ///
    /// - Parameters:
    ///   - objectID: The object.
    ///   - kind: What happened.
    ///   - changedKeys: The changed properties, for an update.
    public init(objectID: ObjectID, kind: Kind, changedKeys: Set<String>) {
        self.objectID = objectID
        self.kind = kind
        self.changedKeys = changedKeys
    }
}
