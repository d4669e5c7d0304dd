import Foundation
import StratusStore
import Testing

@Suite struct AttributeRoundTripTests {
    /// Every attribute type is stored and read back unchanged in a fresh container.
    @Test func everyAttributeTypeSurvivesSaveAndReopen() async throws {
        let stack = try await TestStack()
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let url = try #require(URL(string: "https://example.com/a?b=c#d"))
        let decimal = try #require(Decimal(string: "12345.678901234567890123"))
        let background = stack.container.newBackgroundContext()
        let id = try await background.perform { context in
            let sample = context.insert(entity: "Sample")
            sample.setValue("héllo ✓", forKey: "string")
            sample.setValue(Int16.min, forKey: "int16")
            sample.setValue(Int32.max, forKey: "int32")
            sample.setValue(Int64.min, forKey: "int64")
            sample.setValue(-0.125, forKey: "double")
            sample.setValue(decimal, forKey: "decimal")
            sample.setValue(true, forKey: "bool")
            sample.setValue(date, forKey: "date")
            sample.setValue(Data([0, 1, 2, 255]), forKey: "data")
            sample.setValue(uuid, forKey: "uuid")
            sample.setValue(url, forKey: "uri")
            try context.save()
            return sample.objectID
        }
        try await background.saveChain()

        let reopened = try await stack.reopened()
        let context = reopened.newBackgroundContext()
        try await context.perform { context in
            let sample = try context.existingObject(with: id)
            #expect(sample.value(forKey: "string", as: String.self) == "héllo ✓")
            #expect(sample.value(forKey: "int16", as: Int16.self) == Int16.min)
            #expect(sample.value(forKey: "int32", as: Int32.self) == Int32.max)
            #expect(sample.value(forKey: "int64", as: Int64.self) == Int64.min)
            #expect(sample.value(forKey: "double", as: Double.self) == -0.125)
            #expect(sample.value(forKey: "decimal", as: Decimal.self) == decimal)
            #expect(sample.value(forKey: "bool", as: Bool.self) == true)
            #expect(sample.value(forKey: "date", as: Date.self) == date)
            #expect(sample.value(forKey: "data", as: Data.self) == Data([0, 1, 2, 255]))
            #expect(sample.value(forKey: "uuid", as: UUID.self) == uuid)
            #expect(sample.value(forKey: "uri", as: URL.self) == url)
            #expect(sample.attributeValue(forKey: "int16") == .integer16(Int16.min))
        }
    }

    /// Optional attributes store nil, and an inserted object starts with the default values.
    @Test func nilAndDefaultValuesRoundTrip() async throws {
        let stack = try await TestStack()
        let context = stack.container.newBackgroundContext(parent: .rootContext)
        let id = try await context.perform { context in
            let sample = context.insert(entity: "Sample")
            #expect(sample.value(forKey: "rating", as: Int16.self) == 3)
            #expect(sample.value(forKey: "string") == nil)
            sample.setValue("temporary", forKey: "string")
            sample.setValue(nil, forKey: "string")
            try context.save()
            return sample.objectID
        }
        try await context.saveChain()
        let reopened = try await stack.reopened()
        try await reopened.newBackgroundContext().perform { context in
            let sample = try context.existingObject(with: id)
            #expect(sample.value(forKey: "string") == nil)
            #expect(sample.value(forKey: "uuid") == nil)
            #expect(sample.value(forKey: "rating", as: Int16.self) == 3)
        }
    }

    /// Integers of another width are accepted when they fit the attribute.
    @Test func integersConvertWhenTheyFit() async throws {
        let stack = try await TestStack()
        await stack.container.newBackgroundContext().perform { context in
            let sample = context.insert(entity: "Sample")
            sample.setValue(42, forKey: "int16")
            sample.setValue(Int64(7), forKey: "int32")
            #expect(sample.value(forKey: "int16", as: Int16.self) == 42)
            #expect(sample.value(forKey: "int32", as: Int32.self) == 7)
        }
    }

    /// A non-optional attribute left nil makes the save fail with an error naming it.
    @Test func missingRequiredValueFailsTheSave() async throws {
        let stack = try await TestStack()
        let error = await stack.container.newBackgroundContext().perform { context -> StoreError? in
            _ = context.insert(entity: "Book")
            return #expect(throws: StoreError.self) { try context.save() }
        }
        #expect(error?.code == .missingValue)
        #expect(error?.key == "title")
        #expect(error?.message.contains("non-optional attribute Book.title") == true)
    }

    /// Changed and committed values report the difference between saved and current state.
    @Test func changedAndCommittedValuesTrackEdits() async throws {
        let stack = try await TestStack()
        let context = stack.container.newBackgroundContext()
        try await context.perform { context in
            let author = context.insert(entity: "Author")
            author.setValue("Ada", forKey: "name")
            #expect(author.changedValues()["name"] == .attribute(.string("Ada")))
            #expect(author.committedValues(forKeys: nil).isEmpty)
            try context.save()
            #expect(author.changedValues().isEmpty)
            #expect(!author.hasChanges)
            author.setValue("Grace", forKey: "name")
            #expect(author.isUpdated)
            #expect(author.changedValues() == ["name": .attribute(.string("Grace"))])
            #expect(author.committedValues(forKeys: ["name"]) == ["name": .attribute(.string("Ada"))])
        }
    }
}
