import Foundation
import StratusClient
@testable import StratusExamples
import StratusStore
import StratusStoreSync
import StratusSync
import StratusTesting
import StratusWire
import Testing

/// `StratusStore` managed objects — queue-confined, not `Sendable`, Core Data's shape — sync through
/// their own `.cloud` calls with the app's delegate (the seed's ``PeopleStore``), on two devices.
/// Serialized: `.cloud` uses the process's current controller (`makeCurrent()`), one device at a time.
@Suite(.serialized) struct ManagedEntitySyncTests {
    /// `saveAndWait()` inside `perform` and `save()` from a task off the queue both upload the person
    /// with its team, address and skills; the other device receives them through its delegate.
    @Test func managedObjectsSyncThroughCloudCallsInsideAndOutsidePerform() async throws {
        try await PeopleWorld.run { world in
            let a = try await world.device("a")
            let b = try await world.device("b")
            let id = try await a.stack.addPerson("Ada", city: "London", team: "Engines", skills: ["math", "poetry"])

            // Inside perform: the blocking call on the person's own queue.
            a.sync.makeCurrent()
            let context = a.stack.newBackgroundContext()
            try await CloudController.renameAndSave(id, to: "Augusta", in: context)
            try await context.saveChain()
            try await b.sync.sync()
            #expect(try await b.describe("Augusta") == "Augusta/Engines/London/math,poetry")
            #expect(try await a.read { try $0.existingObject(Person.self, with: id).syncID } != nil, "the sync ID was written back")

            // Outside perform: the controller hops to the person's queue to read it.
            try await context.perform { context in
                let person = try context.existingObject(Person.self, with: id)
                let skill = context.insert(Skill.self)
                skill.title = "engines"
                person.skills += [skill]
                try context.save()
            }
            let person = try await SyncConfinement(context: context).run(handing: { try context.existingObject(Person.self, with: id) })
            try await person.cloud.save()
            try await b.sync.sync()
            #expect(try await b.describe("Augusta") == "Augusta/Engines/London/engines,math,poetry")
        }
    }

    /// Deleting a person deletes its address (a weak entity) on every device; the other device's
    /// delegate hears of both deletions with their entity types and removes the objects.
    @Test func deletingAPersonDeletesItsAddressEverywhere() async throws {
        try await PeopleWorld.run { world in
            let a = try await world.device("a")
            let b = try await world.device("b")
            let id = try await a.stack.addPerson("Grace", city: "Arlington")
            let context = a.stack.newBackgroundContext()
            let person = try await SyncConfinement(context: context).run(handing: { try context.existingObject(Person.self, with: id) })
            a.sync.makeCurrent()
            try await person.cloud.save()
            try await b.sync.sync()
            #expect(try await b.count("Address") == 1)

            try await person.cloud.delete()
            try await context.perform { context in
                context.delete(try context.existingObject(with: id))
                try context.save()
            }
            let changes = try await b.sync.sync()
            let types = Set(changes.deleted.compactMap { $0.entityType.map { "\($0)" } })
            #expect(types == ["Person", "Address"])
            #expect(try await b.count("Person") == 0)
            #expect(try await b.count("Address") == 0)
        }
    }

    /// `update(from:fetchReferences:)` sets an object from a record inside `perform`
    /// (`updateAndWait`) and outside it; an empty team shows the store's "Unassigned" placeholder,
    /// which never reaches the server.
    @Test func updateFromARecordWorksInsideAndOutsidePerform() async throws {
        try await PeopleWorld.run { world in
            let a = try await world.device("a")
            let b = try await world.device("b")
            let id = try await a.stack.addPerson("Alan", city: "Wilmslow", skills: ["logic"])
            let context = a.stack.newBackgroundContext()
            let person = try await SyncConfinement(context: context).run(handing: { try context.existingObject(Person.self, with: id) })
            a.sync.makeCurrent()
            let saved = try #require(try await person.cloud.save())
            try await b.sync.sync()  // B has the address and the skill: references resolve locally

            b.sync.makeCurrent()
            let copyID = try await b.store.context.perform { context in
                let copy = context.insert(Person.self)
                copy.firstName = "?"
                try copy.cloud.updateAndWait(from: saved, fetchReferences: false)
                return copy.objectID
            }
            #expect(
                await b.store.context.perform { context in
                    let copy = context.object(Person.self, with: copyID)
                    return "\(copy.firstName)/\(copy.team?.name ?? "-")/\(copy.address?.city ?? "-")/\(copy.skills.map(\.title))"
                } == "Alan/Unassigned/Wilmslow/[\"logic\"]")

            let outside = try await SyncConfinement(context: b.store.context).run(handing: { b.store.context.object(Person.self, with: copyID) })
            var renamed = saved
            renamed["firstName"] = "Alan M."
            try await outside.cloud.update(from: renamed, fetchReferences: false)
            #expect(await b.store.context.perform { context in context.object(Person.self, with: copyID).firstName } == "Alan M.")
            let everything = try await b.sync.configuration.container.privateCloudDatabase.allRecordZoneChanges(inZoneWith: b.sync.zoneID, since: nil)
            #expect(try everything.modifications().map(\.recordType).sorted() == ["Address", "Person", "Skill"], "the placeholder team is never uploaded")
        }
    }

    /// The controller touches objects only on their queue; the app touching one off its queue is
    /// still stopped, naming the context.
    @Test func touchingAPersonOffItsQueueStillStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = try TemporaryDirectory()
            let stack = try await PeopleStack(url: directory.url.appendingPathComponent("people.store"))
            let context = ObjectContext(concurrencyType: .privateQueue, parent: stack.container.viewContext, name: "people")
            let person = context.performAndWait { context in
                let person = context.insert(Person.self)
                person.firstName = "Ada"
                return person
            }
            _ = person.firstName
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("off the queue of context \"people\" (privateQueue)"))
    }

    /// `predicateForId` finds an object by its sync ID, with the type's key or the controller's global one.
    @Test func predicateForIdFindsTheObjectBySyncID() async throws {
        try await PeopleWorld.run { world in
            let a = try await world.device("a")
            let id = try await a.stack.addPerson("Edsger")
            let name = try await a.edit { context in
                let person = context.object(Person.self, with: id)
                person.setAttribute("syncID", "p-edsger")
                return person.firstName
            }
            #expect(name == "Edsger")
            a.sync.makeCurrent()
            #expect(try await a.read { try $0.fetch(Person.self, where: Person.predicateForId("p-edsger")).map(\.firstName) } == ["Edsger"])
            #expect(try await a.read { try $0.fetch(Person.self, where: Person.predicateForId("p-other")).count } == 0)
        }
    }
}
