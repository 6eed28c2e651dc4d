import Testing
@testable import RecipesKit

@Suite struct InvocationTests {
    @Test func parsesEveryCommand() throws {
        #expect(try Invocation(parsing: ["add", "Pancakes", "flour,", "milk,", "eggs"]) == Invocation(command: .add(recipe: "Pancakes", ingredients: ["flour", " milk", " eggs"])))
        #expect(try Invocation(parsing: ["list"]) == Invocation(command: .list))
        #expect(try Invocation(parsing: ["ingredients"]) == Invocation(command: .ingredients))
        #expect(try Invocation(parsing: ["ingredient", "eggs"]) == Invocation(command: .ingredient(name: "eggs")))
        #expect(try Invocation(parsing: ["remove", "French Toast", "milk"]) == Invocation(command: .remove(recipe: "French Toast", ingredient: "milk")))
        #expect(try Invocation(parsing: ["delete", "Pancakes"]) == Invocation(command: .delete(recipe: "Pancakes")))
        #expect(try Invocation(parsing: ["demo"]) == Invocation(command: .demo))
    }

    @Test(arguments: [
        (["flour, milk, eggs"], ["flour", " milk", " eggs"]),
        (["plain flour,", "whole milk"], ["plain flour", " whole milk"]),
        (["eggs", "butter"], ["eggs", "butter"]),
        (["plain flour"], ["plain flour"]),
        (["eggs,,", "butter"], ["eggs", "", " butter"]),
    ])
    func ingredientsAreSplitAtCommasOrOnePerArgument(arguments: [String], names: [String]) {
        #expect(Invocation.ingredientNames(arguments) == names)
    }

    @Test(arguments: [[], ["help"], ["-h"], ["--help"], ["list", "--help"]])
    func asksForHelp(arguments: [String]) throws {
        #expect(try Invocation(parsing: arguments) == Invocation(command: .help))
    }

    @Test func storeOptionGoesAnywhere() throws {
        let expected = Invocation(storePath: "/tmp/r.store", command: .list)
        #expect(try Invocation(parsing: ["--store", "/tmp/r.store", "list"]) == expected)
        #expect(try Invocation(parsing: ["list", "--store", "/tmp/r.store"]) == expected)
        #expect(try Invocation(parsing: ["--store=/tmp/r.store", "list"]) == expected)
    }

    @Test func doubleDashEndsTheOptions() throws {
        #expect(try Invocation(parsing: ["add", "--", "-odd-", "eggs"]) == Invocation(command: .add(recipe: "-odd-", ingredients: ["eggs"])))
    }

    @Test(arguments: [
        (["frobnicate"], "unknown command \"frobnicate\". Run \"recipes help\" for the commands."),
        (["add", "Pancakes"], "add takes a recipe and its ingredients, got 1 argument. Usage: recipes add <recipe> <ingredient, ingredient, ...>"),
        (["add"], "add takes a recipe and its ingredients, got 0 arguments. Usage: recipes add <recipe> <ingredient, ingredient, ...>"),
        (["list", "all"], "list takes no arguments, got 1. Usage: recipes list"),
        (["ingredients", "eggs"], "ingredients takes no arguments, got 1. Usage: recipes ingredients"),
        (["ingredient"], "ingredient takes 1 argument, got 0. Usage: recipes ingredient <name>"),
        (["remove", "Pancakes"], "remove takes 2 arguments, got 1. Usage: recipes remove <recipe> <ingredient>"),
        (["delete", "a", "b"], "delete takes 1 argument, got 2. Usage: recipes delete <recipe>"),
        (["--store"], "--store needs a file path: recipes --store PATH <command>."),
        (["--store=", "list"], "--store needs a file path: recipes --store PATH <command>."),
        (["--verbose", "list"], "unknown option --verbose. Run \"recipes help\" for the options."),
    ])
    func rejectsMalformedCommandLines(arguments: [String], message: String) {
        #expect(throws: RecipesError(.usage, message)) { try Invocation(parsing: arguments) }
    }
}
