// The ZenCloudKit seed's entities, written in Stratus: a Core Data–shaped person with references and
// reference lists (Documentation/Coming-from-ZenCloudKit.md maps every name). Built by `make test`;
// StratusStoreSyncTests drives them on two devices.
import Foundation
import StratusStore
import StratusStoreSync
import StratusSync

/// ZenCloudKit's `ZKEntity` subclass of `NSManagedObject`: here a wrapper of a managed object, not
/// `Sendable`, used on its context's queue. `person.cloud.save()` is `person.iCloud.save()`.
final class Person: SyncableManagedObject {
    static let entityName = "Person"
    // mappingDictionary: local key → remote field.
    static let mapping = ["firstName": "firstName", "lastName": "lastName", "birthday": "birthday"]
    // references: to-one relationships, saved too.
    static let references = ["team": "team", "address": "address"]
    static let referenceTypes: [String: any SyncableEntity.Type] = ["team": Team.self, "address": Address.self]
    // referenceLists: ZKRefList(entityType:localSource:remoteKey:).
    static let referenceLists = [ReferenceList(entityType: Skill.self, localKey: "skills", remoteKey: "skills")]

    let object: ManagedObject
    init(object: ManagedObject) { self.object = object }

    var firstName: String {
        get { attribute("firstName") }
        set { setAttribute("firstName", newValue) }
    }
    var lastName: String? {
        get { attribute("lastName") }
        set { setAttribute("lastName", newValue) }
    }
    var team: Team? {
        get { related("team") }
        set { setRelated("team", newValue) }
    }
    var address: Address? {
        get { related("address") }
        set { setRelated("address", newValue) }
    }
    var skills: [Skill] {
        get { relatedSet("skills") }
        set { setRelatedSet("skills", newValue) }
    }
    var syncID: String? { attribute("syncID") }
    var modified: Date? { attribute("modified") }
}

/// A team; an empty reference shows the "Unassigned" team (ZenCloudKit's `referencePlaceholder`,
/// which ``PeopleStore`` makes: one object per store, never uploaded).
final class Team: SyncableManagedObject {
    static let entityName = "Team"
    static let mapping = ["name": "name"]
    /// The placeholder's sync ID: listed in the controller's `ignoreKeys`, so sync leaves it alone.
    static let unassignedID = "team-unassigned"
    let object: ManagedObject
    init(object: ManagedObject) { self.object = object }

    /// The "Unassigned" team of this store, made the first time (StoreSync calls this; so does ``PeopleStore``).
    static func referencePlaceholder(in context: ObjectContext) throws -> ManagedObject? {
        if let known = try context.fetch(Team.self, where: predicateForId(unassignedID)).first { return known.object }
        let team = context.insert(Team.self)
        team.name = "Unassigned"
        team.setAttribute("syncID", unassignedID)
        return team.object
    }

    var name: String {
        get { attribute("name") }
        set { setAttribute("name", newValue) }
    }
}

/// A person's address, owned by the person: `isWeak`, so deleting the person deletes it on every device.
final class Address: SyncableManagedObject {
    static let entityName = "Address"
    static let mapping = ["city": "city"]
    static let isWeak = true
    let object: ManagedObject
    init(object: ManagedObject) { self.object = object }

    var city: String {
        get { attribute("city") }
        set { setAttribute("city", newValue) }
    }
}

/// A skill a person lists.
final class Skill: SyncableManagedObject {
    static let entityName = "Skill"
    static let mapping = ["title": "title"]
    let object: ManagedObject
    init(object: ManagedObject) { self.object = object }

    var title: String {
        get { attribute("title") }
        set { setAttribute("title", newValue) }
    }
}

/// The seed's Core Data model: each entity has the two attributes sync needs (`syncID`, `modified`).
enum PeopleModel {
    static func make() throws -> ObjectModel {
        let sync = StoreSync.syncAttributes(syncIdKey: "syncID", changeDateKey: "modified")
        return try ObjectModel(
            version: "1",
            entities: [
                EntityDescription(
                    "Person",
                    attributes: [
                        AttributeDescription("firstName", .string), AttributeDescription("lastName", .string, isOptional: true),
                        AttributeDescription("birthday", .date, isOptional: true),
                    ] + sync,
                    relationships: [
                        .toOne("team", destination: "Team", inverse: "members"), .toOne("address", destination: "Address", inverse: "resident"),
                        .toMany("skills", destination: "Skill", inverse: "people"),
                    ]),
                EntityDescription(
                    "Team", attributes: [AttributeDescription("name", .string)] + sync,
                    relationships: [.toMany("members", destination: "Person", inverse: "team")]),
                EntityDescription(
                    "Address", attributes: [AttributeDescription("city", .string)] + sync,
                    relationships: [.toOne("resident", destination: "Person", inverse: "address")]),
                EntityDescription(
                    "Skill", attributes: [AttributeDescription("title", .string)] + sync,
                    relationships: [.toMany("people", destination: "Person", inverse: "skills")]),
            ])
    }
}
