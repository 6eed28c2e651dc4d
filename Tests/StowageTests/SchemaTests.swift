import Foundation
import Stowage
import Testing

/// Item 4: `Schema` introspection.
@Suite struct SchemaTests {
    @Test func typesReachableThroughRelationshipsAreIncluded() throws {
        let schema = Schema([Budget.self])
        #expect(schema.entities.map(\.name) == ["Budget", "Expense"])
        #expect(Set(schema.entitiesByName.keys) == ["Budget", "Expense"])
        #expect(schema.entity(for: Budget.self)?.name == "Budget")
        #expect(schema.entity(for: Expense.self)?.name == "Expense")
        #expect(schema.entity(for: Item.self) == nil)
    }

    @Test func attributesDescribeTheirProperties() throws {
        let budget = try #require(Schema([Budget.self]).entity(for: Budget.self))
        #expect(budget.properties.map(\.name) == ["name", "limit", "expenses"])
        #expect(Set(budget.attributes.map(\.name)) == ["name", "limit"])
        let attributes = Dictionary(uniqueKeysWithValues: budget.attributes.map { ($0.name, $0) })
        let name = try #require(attributes["name"])
        #expect(ObjectIdentifier(name.valueType) == ObjectIdentifier(String.self))
        #expect(!name.isOptional && !name.isUnique && name.isAttribute && !name.isRelationship)
        #expect(name.originalName == "name")
        #expect(name.storageType == .text)
        let limit = try #require(attributes["limit"])
        #expect(ObjectIdentifier(limit.valueType) == ObjectIdentifier(Double.self))
        #expect(limit.storageType == .real)
        #expect(budget.storedPropertiesByName["limit"]?.name == "limit")

        let item = try #require(Schema([Item.self]).entity(for: Item.self))
        let note = try #require(item.attributes.first { $0.name == "note" })
        #expect(note.isOptional)
        #expect(ObjectIdentifier(note.valueType) == ObjectIdentifier(String?.self))
        let order = try #require(item.attributes.first { $0.name == "order" })
        #expect(order.defaultValue as? Int == 0)
    }

    @Test func relationshipsDescribeTheirDestination() throws {
        let schema = Schema([Budget.self])
        let budget = try #require(schema.entity(for: Budget.self))
        let expenses = try #require(budget.relationships.first)
        #expect(budget.relationships.count == 1)
        #expect(expenses.name == "expenses")
        #expect(expenses.destination == "Expense")
        #expect(!expenses.isToOneRelationship)
        #expect(expenses.deleteRule == .cascade)
        #expect(expenses.isRelationship && !expenses.isAttribute)
        #expect(expenses.inverseKeyPath == \Expense.budget)
        #expect(expenses.inverseName == "budget")

        let expense = try #require(schema.entity(for: Expense.self))
        let toBudget = try #require(expense.relationships.first)
        #expect(toBudget.name == "budget")
        #expect(toBudget.destination == "Budget")
        #expect(toBudget.isToOneRelationship)
        #expect(toBudget.isOptional)
        #expect(toBudget.deleteRule == .nullify)
        #expect(toBudget.inverseName == "expenses")
    }

    @Test func uniquenessConstraintsAndOptions() throws {
        let tag = try #require(Schema([Tag.self]).entity(for: Tag.self))
        let code = try #require(tag.attributes.first { $0.name == "code" })
        #expect(code.isUnique)
        #expect(code.options == [.unique])
        #expect(tag.uniquenessConstraints == [["code"]])

        let person = try #require(Schema([Person.self]).entity(for: Person.self))
        #expect(person.uniquenessConstraints == [["firstName", "lastName"]])
        #expect(person.attributes.allSatisfy { !$0.isUnique })
    }

    @Test func versions() {
        #expect(Schema([Item.self]).version == Schema.Version(1, 0, 0))
        let schema = Schema([Item.self], version: Schema.Version(2, 3, 4))
        #expect(schema.version.major == 2 && schema.version.minor == 3 && schema.version.patch == 4)
        #expect(schema.version.description == "2.3.4")
        #expect(Schema.Version(1, 10, 0) > Schema.Version(1, 9, 9))
        #expect(Schema.Version(2, 0, 0) > Schema.Version(1, 99, 99))
        let encoded = try? JSONEncoder().encode(Schema.Version(1, 2, 3))
        #expect(encoded.flatMap { try? JSONDecoder().decode(Schema.Version.self, from: $0) } == Schema.Version(1, 2, 3))
    }

    @Test func listingATypeTwiceOrItsDestinationKeepsOneEntityEach() {
        let schema = Schema([Expense.self, Budget.self, Expense.self])
        #expect(schema.entities.map(\.name) == ["Expense", "Budget"])
    }

    @Test func everyAttributeTypeHasAColumnType() throws {
        let entity = try #require(Schema([Everything.self]).entity(for: Everything.self))
        let types = Dictionary(uniqueKeysWithValues: entity.attributes.map { ($0.name, $0.storageType) })
        #expect(types["bool"] == .integer && types["uint64"] == .integer && types["int8"] == .integer)
        #expect(types["double"] == .real && types["float"] == .real && types["date"] == .real)
        #expect(types["decimal"] == .text && types["string"] == .text && types["uuid"] == .text && types["url"] == .text)
        #expect(types["data"] == .blob)
        #expect(types["mood"] == .text && types["priority"] == .integer && types["optionalPriority"] == .integer)
        #expect(types["address"] == .text && types["shape"] == .text && types["strings"] == .text && types["counts"] == .text)
        let optionalNames = Set(entity.attributes.filter(\.isOptional).map(\.name))
        #expect(optionalNames == Set(entity.attributes.map(\.name).filter { $0.hasPrefix("optional") }))
        #expect(optionalNames.count == 25)
    }
}
