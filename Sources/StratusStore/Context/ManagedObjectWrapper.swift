/// A typed view of the managed objects of one entity, for app code: a `struct` or `final class` with properties.
///
/// A wrapper holds a ``ManagedObject`` and names its entity; its properties read and write the
/// object through the typed helpers of this protocol, so the keys are spelled once and the types
/// are checked:
///
/// ```swift
/// struct Author: ManagedObjectWrapper {
///     static let entityName = "Author"
///     let object: ManagedObject
///     init(object: ManagedObject) { self.object = object }
///
///     var name: String {
///         get { attribute("name") }
///         nonmutating set { setAttribute("name", newValue) }
///     }
///     var born: Int32? {
///         get { attribute("born") }
///         nonmutating set { setAttribute("born", newValue) }
///     }
///     var books: [Book] { relatedSet("books") }
/// }
///
/// struct Book: ManagedObjectWrapper {
///     static let entityName = "Book"
///     let object: ManagedObject
///     init(object: ManagedObject) { self.object = object }
///
///     var title: String {
///         get { attribute("title") }
///         nonmutating set { setAttribute("title", newValue) }
///     }
///     var author: Author? {
///         get { related("author") }
///         nonmutating set { setRelated("author", newValue) }
///     }
/// }
///
/// try await context.perform { context in
///     let author = context.insert(Author.self)
///     author.name = "Ursula K. Le Guin"
///     let book = context.insert(Book.self)
///     book.title = "The Dispossessed"
///     book.author = author                       // also adds the book to author.books
///     let long = try context.fetch(Book.self, where: PredicateKey<Int32>("pages") > 300, sortedBy: [.ascending("title")])
///     try context.save()
/// }
/// ```
///
/// The setters are `nonmutating`: a wrapper is a handle, and the object it wraps holds the
/// values. A wrapper is confined to its object's context like the object itself (it is not
/// `Sendable`); pass ``ManagedObject/objectID`` to other contexts and wrap the object there with
/// ``ObjectContext/object(_:with:)``.
///
/// Implement ``init(object:)`` by storing the object; to wrap an object yourself, call
/// ``init(wrapping:)``, which checks the entity. The store's own entry points (``ObjectContext/insert(_:)``,
/// ``ObjectContext/fetch(_:where:sortedBy:limit:)``, ``related(_:)``…) always check it: an object of
/// another entity stops the program with a message naming both entities.
public protocol ManagedObjectWrapper {
    /// The name of the entity whose objects this type wraps.
    static var entityName: String { get }
    /// The wrapped object.
    var object: ManagedObject { get }
    /// Wraps `object` without checking its entity; call ``init(wrapping:)`` instead, which does.
    ///
    /// - Parameter object: An object of the entity ``entityName``.
    init(object: ManagedObject)
}

extension ManagedObjectWrapper {
    /// Wraps `object`, stopping the program if it is not of the entity ``entityName``.
    ///
    /// ```swift
    /// let book = Book(wrapping: context.object(with: id))
    /// ```
    ///
    /// - Parameter object: An object of the entity ``entityName``.
    public init(wrapping object: ManagedObject) {
        Self.checkEntity(of: object)
        self.init(object: object)
    }

    /// Stops the program unless `object` is of the entity ``entityName``.
    static func checkEntity(of object: ManagedObject, _ context: @autoclosure () -> String = "") {
        let actual = object.entityInfo.name
        guard actual != entityName else { return }
        let detail = context()
        preconditionFailure(
            "\(Self.self) wraps objects of entity \"\(entityName)\", not \"\(actual)\" (\(object.objectID))"
                + (detail.isEmpty ? "" : ": \(detail)"))
    }

    /// The object's ID (a `Sendable` value that may cross contexts).
    public var objectID: ObjectID { object.objectID }

    // MARK: Attributes

    /// The value of an attribute, as the property's type: optional for an attribute that may be unset.
    ///
    /// ```swift
    /// extension Book {
    ///     var isbn: String { attribute("isbn") }         // a required attribute
    ///     var pages: Int32? { attribute("pages") }       // an optional one
    /// }
    /// ```
    ///
    /// The type must be the attribute's Swift type (`String`, `Int16`, `Int32`, `Int64`, `Double`,
    /// `Decimal`, `Bool`, `Date`, `Data`, `UUID`, `URL`), or that type made optional. Another type,
    /// or an unset value read as a non-optional type, stops the program with a message naming the key.
    ///
    /// - Parameter key: The name of an attribute.
    /// - Returns: The value.
    public func attribute<Value>(_ key: String) -> Value {
        guard let value = object.value(forKey: key) else {
            if let nilType = Value.self as? any ExpressibleByNilLiteral.Type,
                let none = nilType.init(nilLiteral: ()) as? Value
            {
                return none
            }
            preconditionFailure(
                "\(Self.entityName).\(key) is unset, which \(Value.self) cannot hold: declare the property optional")
        }
        guard let typed = value as? Value else {
            preconditionFailure("\(Self.entityName).\(key) holds a \(type(of: value)), not a \(Value.self)")
        }
        return typed
    }

    /// Sets an attribute; `nil` clears it.
    ///
    /// ```swift
    /// extension Author {
    ///     var name: String {
    ///         get { attribute("name") }
    ///         nonmutating set { setAttribute("name", newValue) }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The name of an attribute.
    ///   - value: The new value, of the attribute's Swift type (see ``ManagedObject/setValue(_:forKey:)``).
    public func setAttribute<Value>(_ key: String, _ value: Value?) {
        object.setValue(value.map { $0 as Any }, forKey: key)
    }

    // MARK: Relationships

    /// The object of a to-one relationship, wrapped, or `nil`.
    ///
    /// ```swift
    /// extension Book {
    ///     var author: Author? { related("author") }
    /// }
    /// ```
    ///
    /// - Parameter key: The name of a to-one relationship whose destination is `Destination.entityName`.
    /// - Returns: The related object, or `nil`.
    public func related<Destination: ManagedObjectWrapper>(_ key: String) -> Destination? {
        guard let related = object.value(forKey: key, as: ManagedObject.self) else { return nil }
        Destination.checkEntity(of: related, "\(Self.entityName).\(key)")
        return Destination(object: related)
    }

    /// Sets a to-one relationship (and its inverse); `nil` clears it.
    ///
    /// - Parameters:
    ///   - key: The name of a to-one relationship.
    ///   - destination: An object of the destination entity in the same context, or `nil`.
    public func setRelated<Destination: ManagedObjectWrapper>(_ key: String, _ destination: Destination?) {
        object.setValue(destination?.object, forKey: key)
    }

    /// The objects of a to-many relationship, wrapped, in object ID order.
    ///
    /// ```swift
    /// extension Author {
    ///     var books: [Book] { relatedSet("books") }
    /// }
    /// ```
    ///
    /// - Parameter key: The name of a to-many relationship whose destination is `Destination.entityName`.
    /// - Returns: The related objects (faults until used), ordered by ``ObjectID``.
    public func relatedSet<Destination: ManagedObjectWrapper>(_ key: String) -> [Destination] {
        let objects = object.value(forKey: key, as: Set<ManagedObject>.self) ?? []
        return objects.sorted { $0.objectID < $1.objectID }.map { related in
            Destination.checkEntity(of: related, "\(Self.entityName).\(key)")
            return Destination(object: related)
        }
    }

    /// Replaces the objects of a to-many relationship (and updates the inverses).
    ///
    /// - Parameters:
    ///   - key: The name of a to-many relationship.
    ///   - destinations: Objects of the destination entity in the same context.
    public func setRelatedSet<Destination: ManagedObjectWrapper>(_ key: String, _ destinations: [Destination]) {
        object.setValue(destinations.map(\.object), forKey: key)
    }

    /// Adds an object to a to-many relationship (and sets the inverse).
    ///
    /// ```swift
    /// let author = context.insert(Author.self)
    /// let book = context.insert(Book.self)
    /// author.add(book, to: "books")
    /// ```
    ///
    /// - Parameters:
    ///   - destination: An object of the destination entity in the same context.
    ///   - key: The name of a to-many relationship.
    public func add<Destination: ManagedObjectWrapper>(_ destination: Destination, to key: String) {
        object.addObject(destination.object, forKey: key)
    }

    /// Removes an object from a to-many relationship (and clears the inverse).
    ///
    /// - Parameters:
    ///   - destination: An object of the destination entity in the same context.
    ///   - key: The name of a to-many relationship.
    public func remove<Destination: ManagedObjectWrapper>(_ destination: Destination, from key: String) {
        object.removeObject(destination.object, forKey: key)
    }
}

extension FetchRequest {
    /// Makes a request for the objects of a wrapper type's entity.
    ///
    /// ```swift
    /// let request = FetchRequest(for: Book.self, sortDescriptors: [.ascending("title")])
    /// let books = try context.fetch(request, as: Book.self)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The wrapper type; its ``ManagedObjectWrapper/entityName`` is fetched.
    ///   - predicate: The condition, if any.
    ///   - sortDescriptors: The order.
    ///   - fetchLimit: The most results, if any.
    ///   - fetchOffset: How many results to skip.
    public init<Wrapper: ManagedObjectWrapper>(
        for type: Wrapper.Type, predicate: FetchPredicate? = nil, sortDescriptors: [SortDescriptor] = [],
        fetchLimit: Int? = nil, fetchOffset: Int = 0
    ) {
        self.init(
            entityName: Wrapper.entityName, predicate: predicate, sortDescriptors: sortDescriptors,
            fetchLimit: fetchLimit, fetchOffset: fetchOffset)
    }
}
