/// The value of a property as a `Sendable` value: an attribute value, or the IDs of related objects.
///
/// Returned by ``ManagedObject/changedValues()`` and ``ManagedObject/committedValues(forKeys:)``.
public enum PropertyValue: Sendable, Hashable {
    /// An attribute's value, `nil` when unset.
    case attribute(AttributeValue?)
    /// The related object of a to-one relationship, `nil` when empty.
    case toOne(ObjectID?)
    /// The related objects of a to-many relationship.
    case toMany(Set<ObjectID>)
}
