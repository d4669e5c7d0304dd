/// The schema of an object graph: its entities, with a version identifier, checked when built.
///
/// ```swift
/// let model = try ObjectModel(version: "1", entities: [
///     EntityDescription(
///         "Author",
///         attributes: [AttributeDescription("name", .string)],
///         relationships: [.toMany("books", destination: "Book", inverse: "author", deleteRule: .cascade)]),
///     EntityDescription(
///         "Book",
///         attributes: [AttributeDescription("title", .string)],
///         relationships: [.toOne("author", destination: "Author", inverse: "books")]),
/// ])
/// ```
///
/// The initializer rejects a model that cannot be stored or whose relationships
/// contradict each other (an inverse that does not point back, a destination that does
/// not exist, …), listing every problem in one ``StoreError`` with code
/// ``StoreError/Code/invalidModel``.
///
/// The version identifier is recorded in the store; a store written with another
/// version is refused when it is opened (lightweight migration comes later).
public struct ObjectModel: Sendable {
    /// The identifier recorded in stores made with this model.
    public let versionIdentifier: String
    /// The entities, in the order given.
    public let entities: [EntityDescription]
    let resolved: ResolvedModel

    /// Builds and validates a model.
    ///
    /// - Parameters:
    ///   - version: The version identifier recorded in the store, such as `"1"` or `"2024-06-notes"`.
    ///   - entities: The entities.
    /// - Throws: ``StoreError`` with ``StoreError/Code/invalidModel`` naming every problem found.
    public init(version: String, entities: [EntityDescription]) throws(StoreError) {
        let problems = ModelValidator.problems(version: version, entities: entities)
        guard problems.isEmpty else {
            throw StoreError(
                code: .invalidModel,
                message: "the model is invalid:\n- " + problems.joined(separator: "\n- "))
        }
        versionIdentifier = version
        self.entities = entities
        resolved = ResolvedModel(entities: entities)
    }

    /// The entity called `name`, if any.
    ///
    /// - Parameter name: An entity name.
    /// - Returns: The entity, or `nil`.
    public func entity(named name: String) -> EntityDescription? {
        resolved.entitiesByName[name]?.description
    }
}
