import Foundation
import ReopenFixtures
import Stowage

// Opens a store in a process of its own, for the reopening tests:
//
//     stowage-reopen-probe create STORE Shelf,Book,...   creates and fills the store, prints its summary
//     stowage-reopen-probe read STORE Lamp,Book,...      opens it with the types in that order, prints its summary
//
// Exits 0 on success; on a StowageError prints "error <code>: <message>" and exits 1.

let arguments = CommandLine.arguments
guard arguments.count == 4, ["create", "read"].contains(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: stowage-reopen-probe create|read STORE TYPE,TYPE,...\n".utf8))
    exit(64)
}
do {
    let container = try ReopenFixtures.open(
        URL(fileURLWithPath: arguments[2]), types: arguments[3].split(separator: ",").map(String.init))
    if arguments[1] == "create" { try ReopenFixtures.fill(container) }
    print(try ReopenFixtures.summary(container))
} catch let error as StowageError {
    print("error \(error.code): \(error.message)")
    exit(1)
}
