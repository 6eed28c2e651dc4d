import Foundation
import RecipesKit

exit(Recipes.run(Array(CommandLine.arguments.dropFirst())))
