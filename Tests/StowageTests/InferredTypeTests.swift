import Foundation
import Stowage
@testable import StowageCore
import Testing

/// A sight of a `Trail`: the destination of a to-many relationship declared without a type annotation.
@Model final class Sight {
    var name = ""
    var trail: Trail?

    init(name: String) { self.name = name }
}

/// What `InferredTrail.kind` holds.
enum TrailKind: String, Codable { case basic, scenic }

/// Stored properties written as SwiftData code writes them, without type annotations: the
/// compiler infers each property's type from its initial value, and `@Model` stores it as if written.
@Model final class Trail {
    var sights = [Sight]()
    var count = 0
    var name = ""
    var ratio = 1.5
    var flag = false
    var created = Date.now
    var id = UUID()
    var tags = Set<String>()
    var scores = [String: Int]()
    var kind = TrailKind.basic
    var annotatedKind: TrailKind = .basic
    var levels = Array<Int>()
    var pair = [1, 2]
    var negative = -3

    init() {}
}

@Suite struct InferredTypeTests {
    @Test func propertiesWithoutTypeAnnotationsAreStoredWithTheirInferredTypes() throws {
        let schema = Schema([Trail.self])
        let entity = try #require(schema.entitiesByName["Trail"])
        let types = Dictionary(uniqueKeysWithValues: entity.attributeList.map { ($0.name, "\($0.valueType)") })
        #expect(types["count"] == "Int")
        #expect(types["name"] == "String")
        #expect(types["ratio"] == "Double")
        #expect(types["flag"] == "Bool")
        #expect(types["created"] == "Date")
        #expect(types["id"] == "UUID")
        #expect(types["tags"] == "Set<String>")
        #expect(types["scores"] == "Dictionary<String, Int>")
        #expect(types["kind"] == "TrailKind")
        #expect(types["levels"] == "Array<Int>")
        #expect(types["pair"] == "Array<Int>")
        #expect(types["negative"] == "Int")
        // `[Sight]()` is a to-many relationship, exactly as `var sights: [Sight] = []` would be, and its
        // inverse is found.
        let sights = try #require(entity.relationshipList.first { $0.name == "sights" })
        #expect(sights.isToOneRelationship == false)
        #expect(sights.destination == "Sight")
        #expect(sights.inverseName == "trail")
        // Literal initial values are the attributes' default values.
        #expect(entity.attributeList.first { $0.name == "count" }?.defaultValue as? Int == 0)
        withExtendedLifetime(schema) {}
    }

    @Test func aModelWithoutTypeAnnotationsRoundTripsThroughAReopenedStore() throws {
        let created = Date(timeIntervalSinceReferenceDate: 700_000_000)
        let id = UUID()
        try withFileStore([Trail.self, Sight.self]) { _, open in
            do {
                let context = ModelContext(try open())
                let trail = Trail()
                context.insert(trail)
                trail.count = 3
                trail.name = "Ridge"
                trail.ratio = 0.25
                trail.flag = true
                trail.created = created
                trail.id = id
                trail.tags = ["a", "b"]
                trail.scores = ["x": 1]
                trail.kind = .scenic
                trail.levels = [4, 5]
                trail.sights.append(Sight(name: "Falls"))
                trail.sights.append(Sight(name: "Peak"))
                try context.save()
            }
            let context = ModelContext(try open())
            let trail = try #require(try context.fetch(FetchDescriptor<Trail>(predicate: #Predicate { $0.name == "Ridge" })).first)
            #expect(trail.count == 3)
            #expect(trail.ratio == 0.25)
            #expect(trail.flag)
            #expect(trail.created == created)
            #expect(trail.id == id)
            #expect(trail.tags == ["a", "b"])
            #expect(trail.scores == ["x": 1])
            #expect(trail.kind == .scenic)
            #expect(trail.annotatedKind == .basic)
            #expect(trail.levels == [4, 5])
            #expect(trail.pair == [1, 2])
            #expect(trail.negative == -3)
            #expect(Set(trail.sights.map(\.name)) == ["Falls", "Peak"])
            #expect(trail.sights.allSatisfy { $0.trail === trail })
            let scenic = try context.fetchCount(FetchDescriptor<Trail>(predicate: #Predicate { $0.count > 2 && $0.flag }))
            #expect(scenic == 1)
        }
    }

    @Test func aNewModelHasItsDeclaredInitialValues() {
        let trail = Trail()
        #expect(trail.count == 0 && trail.name == "" && trail.ratio == 1.5 && !trail.flag)
        #expect(trail.sights.isEmpty && trail.tags.isEmpty && trail.scores.isEmpty && trail.kind == .basic)
        #expect(abs(trail.created.timeIntervalSinceNow) < 60)
    }
}
