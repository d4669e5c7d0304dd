/// An attribute of an entity: a name, a type, whether it may be `nil`, and a default value.
///
/// ```swift
/// AttributeDescription("title", .string, defaultValue: .string("Untitled"))
/// AttributeDescription("pages", .integer32, isOptional: true)
/// ```
///
/// A non-optional attribute must have a value when its object is saved; the default
/// value (if any) is set on every inserted object.
public struct AttributeDescription: Sendable, Hashable {
    /// The attribute's name: letters, digits and `_`, starting with a letter; also the column name.
    public var name: String
    /// The type of the values.
    public var type: AttributeType
    /// Whether the value may be `nil` when the object is saved.
    public var isOptional: Bool
    /// The value set on every inserted object, or `nil`; must be of ``type``.
    public var defaultValue: AttributeValue?
    /// The attribute's name in the previous model version, if it was renamed (for lightweight migration).
    public var renamingIdentifier: String?

    /// Describes an attribute.
    ///
    /// - Parameters:
    ///   - name: The attribute's name.
    ///   - type: The type of the values.
    ///   - isOptional: Whether `nil` is allowed at save; `false` by default.
    ///   - defaultValue: The value of a newly inserted object; `nil` by default.
    ///   - renamingIdentifier: The attribute's name in the previous model version, if it was renamed.
    public init(
        _ name: String, _ type: AttributeType, isOptional: Bool = false, defaultValue: AttributeValue? = nil,
        renamingIdentifier: String? = nil
    ) {
        self.renamingIdentifier = renamingIdentifier
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
    }
}
