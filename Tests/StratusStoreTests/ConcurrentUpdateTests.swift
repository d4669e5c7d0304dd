import Foundation
import StratusStore
import Testing

/// Optimistic locking under contention: read-modify-write from many contexts loses no update.
@Suite struct ConcurrentUpdateTests {
    /// Eight contexts increment one shared counter and their own, retrying on conflicts, while the view
    /// context fetches and root saves run: every increment lands, on disk too.
    @Test func incrementsFromEightContextsAreNeverLost() async throws {
        let stack = try await TestStack()
        let container = stack.container
        let workers = 8
        let increments = 10
        let (sharedID, ownIDs) = try await container.newBackgroundContext().perform { context in
            let shared = context.insert(entity: "Author")
            shared.setValue("shared", forKey: "name")
            shared.setValue(0, forKey: "born")
            let own = (0..<workers).map { worker in
                let author = context.insert(entity: "Author")
                author.setValue("worker \(worker)", forKey: "name")
                author.setValue(0, forKey: "born")
                return author
            }
            try context.save()
            return (shared.objectID, own.map(\.objectID))
        }
        try await container.viewContext.saveChain()

        let conflicts = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    let context = container.newBackgroundContext()
                    var conflicts = 0
                    for _ in 0..<increments {
                        while true {
                            let saved = try await context.perform { context -> Bool in
                                let shared = context.object(with: sharedID)
                                context.refresh(shared, mergeChanges: false)  // read the latest value
                                let own = context.object(with: ownIDs[worker])
                                shared.setValue((shared.value(forKey: "born", as: Int32.self) ?? 0) + 1, forKey: "born")
                                own.setValue((own.value(forKey: "born", as: Int32.self) ?? 0) + 1, forKey: "born")
                                do {
                                    try context.save()
                                    return true
                                } catch let error as StoreError where error.code == .mergeConflict {
                                    context.rollback()
                                    return false
                                }
                            }
                            if saved { break }
                            conflicts += 1
                        }
                    }
                    return conflicts
                }
            }
            group.addTask {
                for _ in 0..<10 {
                    _ = try await container.viewContext.perform { context in try context.count("Author") }
                    try await container.viewContext.saveChain()
                }
                return 0
            }
            return try await group.reduce(0, +)
        }
        try await container.viewContext.saveChain()

        let expected = [Int32(workers * increments)] + Array(repeating: Int32(increments), count: workers)
        let ids = [sharedID] + ownIDs
        let inView = await container.viewContext.perform { context in
            ids.map { context.object(with: $0).value(forKey: "born", as: Int32.self) ?? -1 }
        }
        #expect(inView == expected, "after \(conflicts) conflicts")
        let onDisk = try await stack.reopened().newBackgroundContext().perform { context in
            ids.map { context.object(with: $0).value(forKey: "born", as: Int32.self) ?? -1 }
        }
        #expect(onDisk == expected)
    }
}
