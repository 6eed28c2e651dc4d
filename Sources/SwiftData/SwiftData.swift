// The SwiftData module of platforms without Apple's SwiftData: Stowage, under SwiftData's name, so that
// `import SwiftData` and `SwiftData.ModelContainer` compile unchanged.
//
// On Apple platforms `import SwiftData` must be Apple's framework: there this module is empty, and a
// package depends on the `SwiftData` product only on other platforms, with
// `.product(name: "SwiftData", package: "stowage", condition: .when(platforms: [.linux]))`
// (the "Getting Started" article).
#if !canImport(Darwin)
@_exported import Stowage
#endif
