import Stowage

/// SpendSmart's models before budgets had transactions, kept only to recognise the stores that version
/// left behind: Stowage has no migrations yet, so such a store does not open with today's models.
enum SpendSmartV1 {
    @Model
    final class Budget {

        var name: String
        var limit: Double

        init(name: String, limit: Double) {
            self.name = name
            self.limit = limit
        }
    }
}
