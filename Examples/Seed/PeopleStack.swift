// The seed's Core Data stack in Stratus: a store opened off the caller's thread, a main-queue view
// context, background contexts for work, and the save chain background → view → disk.
import Foundation
import StratusStore

/// ZenCloudKit's sample kept an `NSPersistentContainer` with a background context; the same stack
/// on `StratusStore`.
final class PeopleStack: Sendable {
    let container: PersistentContainer

    /// Opens (or creates) the store at `url`.
    init(url: URL) async throws {
        container = PersistentContainer(name: "People", model: try PeopleModel.make(), url: url)
        try await container.loadPersistentStores()  // off the caller's thread; migrates if needed
    }

    /// A context for background work: a private queue, a child of the view context.
    func newBackgroundContext() -> ObjectContext {
        container.newBackgroundContext()
    }

    /// Inserts a person in a background context and saves all the way to disk (the save chain).
    func addPerson(_ firstName: String, lastName: String? = nil, city: String? = nil, team: String? = nil, skills: [String] = []) async throws -> ObjectID {
        let background = newBackgroundContext()
        let id = try await background.perform { context in
            let person = context.insert(Person.self)
            person.firstName = firstName
            person.lastName = lastName
            if let city {
                let address = context.insert(Address.self)
                address.city = city
                person.address = address
            }
            if let team {
                let group = context.insert(Team.self)
                group.name = team
                person.team = group
            }
            person.skills = skills.map { title in
                let skill = context.insert(Skill.self)
                skill.title = title
                return skill
            }
            try context.save()  // into the view context
            return person.objectID
        }
        try await background.saveChain()  // … and on to disk
        return id
    }

    /// Closes the store.
    func close() throws {
        try container.close()
    }
}
