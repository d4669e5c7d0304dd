import Foundation

/// The shape of a model as recorded in the store's metadata: what lightweight migration compares the program's model with.
///
/// Only what decides storage is kept: names, attribute types and optionality, relationships.
struct StoredModel: Codable, Sendable {
    struct Attribute: Codable, Sendable {
        var name: String
        var type: String
        var isOptional: Bool
    }

    struct Relationship: Codable, Sendable {
        var name: String
        var destination: String
        var isToMany: Bool
        var inverse: String?
        var isOptional: Bool
    }

    struct Entity: Codable, Sendable {
        var name: String
        var attributes: [Attribute]
        var relationships: [Relationship]
    }

    var entities: [Entity]

    init(_ model: ObjectModel) {
        entities = model.entities.map { entity in
            Entity(
                name: entity.name,
                attributes: entity.attributes.map { Attribute(name: $0.name, type: $0.type.rawValue, isOptional: $0.isOptional) },
                relationships: entity.relationships.map {
                    Relationship(
                        name: $0.name, destination: $0.destinationEntityName, isToMany: $0.isToMany, inverse: $0.inverseName,
                        isOptional: $0.isOptional)
                })
        }
    }

    /// The entities as descriptions (without defaults, constraints or indexes), or `nil` if a type is unknown.
    var descriptions: [EntityDescription]? {
        var result: [EntityDescription] = []
        for entity in entities {
            var attributes: [AttributeDescription] = []
            for attribute in entity.attributes {
                guard let type = AttributeType(rawValue: attribute.type) else { return nil }
                attributes.append(AttributeDescription(attribute.name, type, isOptional: attribute.isOptional))
            }
            result.append(
                EntityDescription(
                    entity.name, attributes: attributes,
                    relationships: entity.relationships.map {
                        RelationshipDescription(
                            $0.name, destination: $0.destination, isToMany: $0.isToMany, inverse: $0.inverse,
                            isOptional: $0.isOptional)
                    }))
        }
        return result
    }

    /// The JSON text stored in the metadata.
    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// Reads the JSON text stored in the metadata.
    static func decode(_ json: String) throws -> StoredModel {
        try JSONDecoder().decode(StoredModel.self, from: Data(json.utf8))
    }
}
