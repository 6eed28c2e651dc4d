// snippet.hide
// Models and attributes: a model using each kind of attribute.
// snippet.show
// snippet.model
import Stowage

enum Priority: Int, Codable {
    case low, normal, high
}

struct Address: Codable, Hashable {
    var street: String
    var city: String
}

@Model
final class Contact {
    #Unique<Contact>([\.givenName, \.familyName])
    #Index<Contact>([\.familyName], [\.familyName, \.givenName])

    var givenName: String
    var familyName: String
    @Attribute(.unique) var email: String                // a second contact with this email updates the first
    @Attribute(originalName: "notes") var remarks: String = ""
    @Attribute(.externalStorage) var photo: Data?        // kept in a side table, read when used
    var priority: Priority = .normal                     // stored as its raw value, 1
    var address: Address?                                // Codable: stored as JSON text
    var tags: [String] = []
    var birthday: Date?
    private(set) var createdAt: Date = .now              // read-only outside the class, still stored

    @Attribute(.ephemeral) var isSelected: Bool = false  // tracked, not stored
    @Transient var matchScore = 0.0                      // neither stored nor tracked

    init(givenName: String, familyName: String, email: String) {
        self.givenName = givenName
        self.familyName = familyName
        self.email = email
    }
}
// snippet.end
// snippet.hide

let container = try ModelContainer(for: Contact.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
let context = ModelContext(container)
let ada = Contact(givenName: "Ada", familyName: "Lovelace", email: "ada@example.com")
ada.address = Address(street: "St James's Square", city: "London")
ada.priority = .high
context.insert(ada)
try context.save()
// snippet.show
// snippet.upsert
context.insert(Contact(givenName: "Augusta Ada", familyName: "King", email: "ada@example.com"))
try context.save()                                   // updates the stored contact: one row
// snippet.end
// snippet.hide
let contacts = try context.fetch(FetchDescriptor<Contact>())
precondition(contacts.count == 1 && contacts[0].familyName == "King", "the unique email upserts")
