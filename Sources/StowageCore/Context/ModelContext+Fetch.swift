import Foundation

extension ModelContext {
    /// Returns the models matching a descriptor.
    ///
    /// The predicate, sort, limit and offset run in SQL. When the context has unsaved changes to models
    /// of the type (and ``FetchDescriptor/includePendingChanges`` is `true`), the results also reflect
    /// them: inserted and changed models are matched in memory, deleted ones left out.
    ///
    /// - Throws: ``StowageError`` when the type is not in the schema, the store fails, or (in strict
    ///   mode) the predicate cannot run in SQL.
    ///
    /// Inlinable: the descriptor is read where its model type is known (`FetchRequest`), and the rest
    /// of the fetch runs in non-generic code, which unspecialised generic code would slow down with
    /// type-metadata look-ups and value-witness calls (thousands of instructions per fetch).
    @inlinable
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let fetched = try _fetch(FetchRequest(descriptor))
        guard let plan = fetched.unfinished else { return [T](castingElementsOf: fetched.models) }
        return try _finish([T](castingElementsOf: fetched.models), descriptor, plan: plan)
    }

    /// The SQL part of ``fetch(_:)``: the models SQL returns, and the plan when Swift still has work to
    /// do on them (pending changes, untranslated predicate nodes or sorts, prefetching).
    @usableFromInline
    func _fetch(_ request: FetchRequest) throws -> (models: ContiguousArray<any PersistentModel>, unfinished: FetchPlan?) {
        processInbox()
        let plan = try FetchPlan(request, context: self)
        let models = try fetchObjects(plan.query)
        if plan.runsEntirelyInSQL && !request.prefetchesRelationships { return (models, nil) }
        return (models, plan)
    }

    /// The Swift part of ``fetch(_:)``.
    @usableFromInline
    func _finish<T: PersistentModel>(_ rows: [T], _ descriptor: FetchDescriptor<T>, plan: FetchPlan) throws -> [T] {
        let finished = try plan.finish(rows, descriptor: descriptor, context: self)
        if !descriptor.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(descriptor.relationshipKeyPathsForPrefetching, for: finished, entity: plan.entity)
        }
        return finished
    }

    /// Returns the number of models matching a descriptor, counted in SQL when the context has no
    /// pending changes to the type.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        processInbox()
        let plan = try FetchPlan(FetchRequest(descriptor), context: self)
        if plan.runsEntirelyInSQL { return try store.count(plan.query) }
        return try fetch(descriptor).count
    }

    /// Returns the identifiers of the models matching a descriptor, without materialising models when
    /// the context has no pending changes to the type.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        processInbox()
        let plan = try FetchPlan(FetchRequest(descriptor), context: self)
        if plan.runsEntirelyInSQL && !plan.entity.isInHierarchy {
            return try store.primaryKeys(plan.query).map { identifier(entity: plan.entity, primaryKey: $0) }
        }
        if plan.runsEntirelyInSQL {
            // A class hierarchy: each identifier names its row's own class, read from `_entity`.
            var query = plan.query
            query.attributes = []
            query.foreignKeys = []
            var identifiers: [PersistentIdentifier] = []
            try store.fetch(query) { row in
                let name = if case .text(let name) = row.value(at: 0) { name } else { plan.entity.name }
                let entity = plan.entity.fetchableEntitiesByName[name] ?? plan.entity
                identifiers.append(identifier(entity: entity, primaryKey: row.primaryKey))
            }
            return identifiers
        }
        return try fetch(descriptor).map(\.persistentModelID)
    }

    /// The most rows iteration (`enumerate`, `for`-`in` over ``fetch(_:batchSize:)``) reads per statement:
    /// a larger `batchSize` is honoured as a bound on memory, not as the size of each read. Models made
    /// from a few hundred rows and released as the loop moves on reuse memory that is still in the
    /// processor's caches; a batch of 5,000 fills and frees megabytes at a time (measured with the
    /// benchmark's W6: ~2.3× raw SQLite with 256 rows per read against ~3× with 5,000; 64 was no better
    /// than 256).
    @usableFromInline static let iterationBatchLimit = 256

    /// Returns the models matching a descriptor as a lazy collection that loads them `batchSize` at a time
    /// as you access them. Only the identifiers of all matches and the current batch stay in memory.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> FetchResultsCollection<T> {
        processInbox()
        let plan = try FetchPlan(FetchRequest(descriptor), context: self)
        guard plan.runsEntirelyInSQL else {
            let all = try fetch(descriptor)
            return FetchResultsCollection(count: all.count, batchSize: max(all.count, 1)) { Array(all[$0]) }
        }
        let entity = plan.entity
        let query = plan.query
        if query.sort.isEmpty && query.limit == nil && query.offset == nil {
            // In primary-key order no key list is needed: a batch that follows the previous one starts
            // after its last key; a jump elsewhere uses OFFSET. Memory stays bounded by the batch.
            let cursor = KeysetCursor()
            return FetchResultsCollection(count: try store.count(query), batchSize: max(batchSize, 1)) { [self] range in
                defer { cursor.buffer.removeAll(keepingCapacity: true) }
                var batchQuery = query
                batchQuery.limit = range.count
                if range.lowerBound == cursor.end, let last = cursor.lastKey {
                    let after = QueryExpression.comparison(.greater, .primaryKey, .value(.integer(last)), collation: nil)
                    batchQuery.filter = query.filter.map { .and([$0, after]) } ?? after
                } else if range.lowerBound > 0 {
                    batchQuery.offset = range.lowerBound
                }
                try fetchObjects(batchQuery, into: &cursor.buffer)
                cursor.end = range.upperBound
                if case .row(let key)? = cursor.buffer.last?.persistentBackingData.key { cursor.lastKey = key }
                return [T](castingElementsOf: cursor.buffer)
            }
        }
        let keys = try store.primaryKeys(query)
        let attributes = query.attributes
        return FetchResultsCollection(count: keys.count, batchSize: max(batchSize, 1)) { [self] range in
            try self.models(T.self, entity: entity, primaryKeys: Array(keys[range]), attributes: attributes)
        }
    }

    /// Returns the identifiers of the models matching a descriptor, in batches.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> FetchResultsCollection<PersistentIdentifier> {
        let identifiers = try fetchIdentifiers(descriptor)
        return FetchResultsCollection(count: identifiers.count, batchSize: max(batchSize, 1)) { Array(identifiers[$0]) }
    }

    /// Calls `block` for each model matching a descriptor, loading `batchSize` models at a time (at most
    /// a few hundred per read; see `iterationBatchLimit`). Memory stays bounded by the batch size whatever
    /// the number of matches, and a model `block` does not keep is released when `block` returns.
    ///
    /// - Parameters:
    ///   - allowEscapingMutations: Whether `block` may leave unsaved changes in the context. When `false`
    ///     (the default) and it does, enumeration stops with ``StowageError/Code/invalidValue``.
    public func enumerate<T: PersistentModel>(
        _ fetch: FetchDescriptor<T>, batchSize: Int = 5000, allowEscapingMutations: Bool = false,
        block: (T) throws -> Void
    ) throws {
        processInbox()
        let batchSize = Swift.min(Swift.max(batchSize, 1), Self.iterationBatchLimit)
        let changesBefore = hasChanges
        func checkMutations() throws {
            if !allowEscapingMutations && !changesBefore && hasChanges {
                throw StowageError(
                    .invalidValue,
                    "The enumerate block changed models. Save inside the block, or pass allowEscapingMutations: true.",
                    entityName: String(describing: T.self))
            }
        }
        let plan = try FetchPlan(FetchRequest(fetch), context: self)
        if plan.runsEntirelyInSQL && plan.query.sort.isEmpty && plan.query.limit == nil && plan.query.offset == nil {
            // Keyset pagination in primary-key order: each batch starts after the last key of the
            // previous one, so nothing is held between batches (no list of every key).
            // The batch hands each model over to `block` (reversed, then popped) and forgets it, so a
            // model the block does not keep is released as soon as the block returns, and batches hold
            // at most `iterationBatchLimit` models (see there).
            var last: Int64?
            var batch = ContiguousArray<any PersistentModel>()
            batch.reserveCapacity(batchSize)
            while true {
                batch.removeAll(keepingCapacity: true)
                var query = plan.query
                query.limit = batchSize
                if let last {
                    let after = QueryExpression.comparison(.greater, .primaryKey, .value(.integer(last)), collation: nil)
                    query.filter = query.filter.map { .and([$0, after]) } ?? after
                }
                try fetchObjects(query, into: &batch)
                guard case .row(let key)? = batch.last?.persistentBackingData.key else { return }
                let count = batch.count
                batch.reverse()
                while let model = batch.popLast() { try block(unsafeDowncast(model as AnyObject, to: T.self)) }
                try checkMutations()
                guard count == batchSize else { return }
                last = key
            }
        }
        let results = try self.fetch(fetch, batchSize: batchSize)
        var index = results.startIndex
        while index < results.endIndex {
            let end = min(index + batchSize, results.endIndex)
            // Handed over one by one, as above. Models are class instances, so the batch is an array
            // of object references: as `[AnyObject]` the loop runs specialised code (generic array
            // operations on `[T]` cost hundreds of instructions per element here).
            var batch = unsafeBitCast(try results.batch(index..<end), to: [AnyObject].self)
            batch.reverse()
            while let model = batch.popLast() { try block(unsafeDowncast(model, to: T.self)) }
            try checkMutations()
            index = end
        }
    }

    /// Returns the model with an identifier: the registered object if the context holds one, otherwise
    /// the model loaded from the store.
    ///
    /// An identifier this context cannot resolve — its row was deleted, another store issued it, or it
    /// is the temporary identifier of a model another context inserted — gives a model that reports
    /// ``PersistentModel/isDeleted`` and has the identifier asked for; reading its properties stops the
    /// program, so check `isDeleted` first. The identifier's entity must be part of the schema.
    public func model(for persistentModelID: PersistentIdentifier) -> any PersistentModel {
        processInbox()
        if let registered = registeredAnyModel(for: persistentModelID) { return registered }
        guard let entity = schema.entitiesByName[persistentModelID.entityName] else {
            preconditionFailure("model(for:): \(persistentModelID) names the entity \(persistentModelID.entityName), which is not part of this container's schema.")
        }
        if let pk = persistentModelID.rowKey, persistentModelID.storeIdentifier == store.identifier(for: entity),
           let model = try? fetchObjects(StoreQuery(entity: entity, primaryKeys: [pk])).first {
            return model
        }
        // No such row here: a model that reports itself deleted, as SwiftData returns for a stale identifier.
        var state = ModelBackingData.Storage()
        state.entity = entity
        state.key = persistentModelID.key
        state.storeIdentifier = persistentModelID.storeIdentifier
        state.state = .removed
        return entity.modelType.init(backingData: state)
    }

    /// Returns the model with an identifier if the context holds it, without touching the store.
    public func registeredModel<T: PersistentModel>(for persistentModelID: PersistentIdentifier) -> T? {
        registeredAnyModel(for: persistentModelID) as? T
    }

    func registeredAnyModel(for id: PersistentIdentifier) -> (any PersistentModel)? {
        guard let entity = schema.entitiesByName[id.entityName] else { return nil }
        switch id.key {
        case .row(let pk):
            guard id.storeIdentifier == store.identifier(for: entity) else { return nil }
            return registered[RowKey(entity: entity, primaryKey: pk)]?.model
        case .temporary:
            return inserted.models.first { $0.persistentBackingData.key == id.key }
        }
    }

    func identifier(entity: Schema.Entity, primaryKey: Int64) -> PersistentIdentifier {
        PersistentIdentifier(entityName: entity.name, storeIdentifier: store.identifier(for: entity), key: .row(primaryKey))
    }

    /// Loads the property behind `storage` for a model whose storage is empty.
    func loadProperty<Model: PersistentModel, Value>(
        of model: Model, backingData data: ModelBackingData, storage: ReferenceWritableKeyPath<Model, Value?>
    ) throws {
        guard let entity = data.entity, let index = entity.propertyIndex(for: storage), case .row? = data.key else { return }
        if let relationship = entity.properties[index] as? Schema.Relationship {
            try loadRelationship(relationship, of: model, backingData: data)
            return
        }
        guard let attribute = entity.properties[index] as? Schema.Attribute else { return }
        try loadAttribute(attribute, of: model, backingData: data)
    }

    /// Runs a load a property getter needs, which cannot report an error: when it runs out of memory,
    /// the store's idle connections are closed (freeing their caches) and it is tried again, twice.
    func retryingOutOfMemory(_ load: () throws -> Void) throws {
        for attempt in 0... {
            do {
                return try load()
            } catch let error as StowageError where error.code == .outOfMemory && attempt < 2 {
                store.releaseMemory()
            }
        }
    }

    /// Loads one attribute of a stored model (with the row's other attributes not loaded yet).
    func loadAttribute(_ attribute: Schema.Attribute, of model: AnyObject, backingData data: ModelBackingData) throws {
        guard let entity = data.entity, case .row(let pk)? = data.key else { return }
        if attribute.isExternalStorage {
            try attribute.accessor.load(store.externalValue(attribute, of: entity, primaryKey: pk), into: model)
            return
        }
        var query = StoreQuery(entity: entity, attributes: entity.columnAttributes.filter { !$0.accessor.isLoaded(model) })
        query.foreignKeys = []
        query.primaryKeys = [pk]
        try store.fetch(query) { row in
            for (offset, attribute) in query.attributes.enumerated() {
                try attribute.accessor.load(row.value(at: offset), into: model)
            }
        }
    }

    /// Applies the saves of other contexts: rows deleted there are forgotten here, rows changed there are
    /// refreshed here unless this context changed them too.
    func processInbox() {
        var changes = inbox.take()
        guard !changes.isEmpty else { return }
        if changes.refreshAll { changes = everyRegisteredRow(changes) }
        var deletedRows: [RowKey] = []
        for (name, keys) in changes.deleted {
            guard let entity = schema.entitiesByName[name] else { continue }
            for pk in keys { deletedRows.append(RowKey(entity: entity, primaryKey: pk)) }
        }
        if !changes.erased.isEmpty {
            for model in registered.models {
                let data = model.persistentBackingData
                guard let entity = data.entity, changes.erased.contains(entity.name), case .row(let pk)? = data.key else { continue }
                deletedRows.append(RowKey(entity: entity, primaryKey: pk))
            }
        }
        for key in deletedRows {
            guard let model = registered[key]?.model else { continue }
            let data = model.persistentBackingData
            guard data.state == .persisted, data.changedProperties.isEmpty else {
                // Unsaved changes or a pending deletion: the model stays as it is until they are
                // resolved (a save of a change then fails with .saveConflict; a rollback removes it).
                data.rowDeletedElsewhere = true
                continue
            }
            data.state = .removed
            registered.removeValue(forKey: key)
        }
        // Relationship arrays and external values this context loaded may have changed: forget them
        // (unless this context changed that property and has not saved it) so the next read loads the
        // saved state. Decided per property: a model with other unsaved changes is refreshed too.
        let touched = Set(changes.updated.keys).union(changes.deleted.keys).union(changes.erased)
        for model in registered.models {
            let data = model.persistentBackingData
            guard data.state == .persisted, let entity = data.entity else { continue }
            let changed = data.changedProperties
            for relationship in entity.relationshipList where !changed.contains(relationship.index) {
                guard let accessor = relationship.accessor, let destination = relationship.destinationEntity else { continue }
                switch relationship.storage {
                case .inverseForeignKey, .joinTable:
                    // A destination's rows include its subclasses', which saves report under their own names.
                    if touched.contains(entity.name) || destination.entityNamesForFetch.contains(where: touched.contains) {
                        accessor.invalidate(model)
                    }
                case .foreignKey:
                    if let key = data.foreignKeys[relationship.index],
                       destination.entityNamesForFetch.contains(where: { changes.isDeleted($0, key) }) {
                        data.foreignKeys[relationship.index] = nil
                        accessor.invalidate(model)
                    }
                }
            }
            if case .row(let pk)? = data.key, changes.updated[entity.name]?.contains(pk) == true {
                for attribute in entity.externalAttributes where attribute.accessor.isLoaded(model) && !changed.contains(attribute.index) {
                    attribute.accessor.unload(model)
                }
            }
        }
        for (name, keys) in changes.updated {
            guard let entity = schema.entitiesByName[name] else { continue }
            let held = keys.filter { registered[RowKey(entity: entity, primaryKey: $0)] != nil }
            guard !held.isEmpty else { continue }
            do {
                _ = try fetchObjects(StoreQuery(entity: entity, primaryKeys: held.sorted()))
            } catch {
                Self.logger.error("Refreshing \(entity.name) after another context's save failed: \(error)")
            }
        }
    }
}

/// What a ``FetchDescriptor`` asks, read out of it where its model type is known: the fetch itself
/// runs in non-generic code.
@usableFromInline
struct FetchRequest {
    @usableFromInline let modelType: any PersistentModel.Type
    /// The predicate's expression and the identifier of its model variable.
    @usableFromInline let predicate: (expression: any StandardPredicateExpression<Bool>, variable: PredicateExpressions.VariableID)?
    @usableFromInline let sorts: [SortKey]
    @usableFromInline let fetchLimit: Int?
    @usableFromInline let fetchOffset: Int?
    @usableFromInline let includePendingChanges: Bool
    @usableFromInline let propertiesToFetch: [AnyKeyPath]
    @usableFromInline let prefetchesRelationships: Bool
    /// The descriptor itself, for a custom data store (which takes it as it is).
    @usableFromInline let descriptor: Any

    @inlinable
    init<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) {
        modelType = T.self
        self.descriptor = descriptor
        if let predicate = descriptor.predicate {
            self.predicate = (predicate.expression, predicate.variable.key)
        } else {
            predicate = nil
        }
        sorts = descriptor.sortBy.map { SortKey($0) }
        fetchLimit = descriptor.fetchLimit
        fetchOffset = descriptor.fetchOffset
        includePendingChanges = descriptor.includePendingChanges
        propertiesToFetch = descriptor.propertiesToFetch
        prefetchesRelationships = !descriptor.relationshipKeyPathsForPrefetching.isEmpty
    }
}

/// How a descriptor runs: what SQL does, and what Swift finishes (pending changes, untranslatable
/// predicate nodes or sorts).
@usableFromInline
struct FetchPlan {
    let entity: Schema.Entity
    var query: StoreQuery
    let evaluatesPredicateInSwift: Bool
    let sortsInSwift: Bool
    /// Inserted and changed models of the entity, matched in Swift.
    let pendingModels: [any PersistentModel]
    let excludedKeys: Set<Int64>

    var runsEntirelyInSQL: Bool {
        !evaluatesPredicateInSwift && !sortsInSwift && pendingModels.isEmpty && excludedKeys.isEmpty
    }

    init(_ request: FetchRequest, context: ModelContext) throws {
        let entity = try context.entity(for: request.modelType)
        self.entity = entity
        let strict = context.requiresSQLTranslation
        var query = StoreQuery(entity: entity)
        var evaluateInSwift = false
        let takesDescriptors = context.store.acceptsDescriptors
        if takesDescriptors {
            // A custom data store gets the descriptor; Swift evaluates the predicate and the sort over what
            // it returns, whether or not the store applied them.
            query.descriptor = request.descriptor
            evaluateInSwift = request.predicate != nil
        } else if let predicate = request.predicate {
            let translation = try PredicateTranslator.translate(
                predicate.expression, variable: predicate.variable, entity: entity,
                storeIdentifier: context.store.identifier(for: entity), strict: strict)
            query.filter = translation.filter
            query.parameters = translation.parameters
            query.template = translation.template
            evaluateInSwift = !translation.isComplete
        }
        var sortInSwift = takesDescriptors && !request.sorts.isEmpty
        if !request.sorts.isEmpty && !takesDescriptors {
            if let terms = try SortTranslator.translate(request.sorts, entity: entity, strict: strict) {
                query.sort = terms
            } else {
                sortInSwift = true
            }
        }
        var pending: [any PersistentModel] = []
        var excluded: Set<Int64> = []
        if request.includePendingChanges && context.hasChanges {
            // Models of the entity, and of its subclasses' entities.
            func isFetched(_ model: any PersistentModel) -> Bool {
                guard let own = model.persistentBackingData.entity else { return false }
                return own === entity || (entity.isInHierarchy && entity.fetchableEntitiesByName[own.name] === own)
            }
            for model in context.inserted.models where isFetched(model) { pending.append(model) }
            for model in context.changed.models {
                guard isFetched(model), case .row(let pk)? = model.persistentBackingData.key else { continue }
                pending.append(model)
                excluded.insert(pk)
            }
            for model in context.deleted.models {
                guard isFetched(model), case .row(let pk)? = model.persistentBackingData.key else { continue }
                excluded.insert(pk)
            }
        }
        self.evaluatesPredicateInSwift = evaluateInSwift
        self.sortsInSwift = sortInSwift
        self.pendingModels = pending
        self.excludedKeys = excluded
        // Only when SQL does everything: Swift sorting or matching would read the properties left out.
        if !request.propertiesToFetch.isEmpty && pending.isEmpty && excluded.isEmpty && !evaluateInSwift && !sortInSwift {
            let wanted = Set(request.propertiesToFetch.compactMap { entity.propertyIndex(for: $0) })
            query.attributes = entity.columnAttributes.filter { wanted.contains($0.index) }
        }
        if pending.isEmpty && excluded.isEmpty && !evaluateInSwift && !sortInSwift {
            query.limit = request.fetchLimit
            query.offset = request.fetchOffset
        }
        self.query = query
    }

    /// Finishes in Swift what SQL could not do, for the descriptor the plan was made from.
    func finish<T: PersistentModel>(_ rows: [T], descriptor: FetchDescriptor<T>, context: ModelContext) throws -> [T] {
        guard !runsEntirelyInSQL else { return rows }
        var results = excludedKeys.isEmpty ? rows : rows.filter {
            guard case .row(let pk)? = $0.persistentBackingData.key else { return true }
            return !excludedKeys.contains(pk)
        }
        if let predicate = descriptor.predicate {
            if evaluatesPredicateInSwift { results = try results.filter { try predicate.evaluate($0) } }
            results += try pendingModels.map { $0 as! T }.filter { try predicate.evaluate($0) }
        } else {
            results += pendingModels.map { $0 as! T }
        }
        if sortsInSwift {
            results = try SwiftOrdering.sort(results, by: descriptor.sortBy, entity: entity)
        } else {
            // With no sort too: SQL returns rows in primary-key order, and the merged pending models take
            // the same places (stored rows by key, unsaved ones last in insertion order), so a limit picks
            // the same models before and after a save.
            results = try SwiftOrdering.sort(results, by: query.sort)
        }
        if let offset = descriptor.fetchOffset, offset > 0 { results = Array(results.dropFirst(offset)) }
        if let limit = descriptor.fetchLimit { results = Array(results.prefix(limit)) }
        return results
    }
}

/// The lazily loaded results of ``ModelContext/fetch(_:batchSize:)``: a random-access collection that
/// loads its elements in batches on access and keeps only the most recent batch.
public struct FetchResultsCollection<Element>: RandomAccessCollection {
    @usableFromInline
    final class Storage {
        @usableFromInline let batchSize: Int
        let load: (Range<Int>) throws -> [Element]
        // Read on every element access, each access whole and non-overlapping: no dynamic exclusivity
        // checks (a runtime call each).
        @exclusivity(unchecked) var batchStart = -1
        @exclusivity(unchecked) var batch: [Element] = []

        init(batchSize: Int, load: @escaping (Range<Int>) throws -> [Element]) {
            self.batchSize = batchSize
            self.load = load
        }
    }

    /// The position of the first element: always 0.
    @usableFromInline let storage: Storage
    public let startIndex = 0
    /// The number of elements, one past the last position.
    public let endIndex: Int

    init(count: Int, batchSize: Int, load: @escaping (Range<Int>) throws -> [Element]) {
        self.endIndex = count
        self.storage = Storage(batchSize: batchSize, load: load)
    }

    /// The element at `position`, loading its batch if needed.
    ///
    /// A store failure while loading a batch stops the program: use ``ModelContext/enumerate(_:batchSize:allowEscapingMutations:block:)``
    /// to handle such errors.
    public subscript(position: Int) -> Element {
        precondition(position >= 0 && position < endIndex, "FetchResultsCollection index out of range")
        let start = position - position % storage.batchSize
        if start != storage.batchStart {
            // Release the previous batch first: its memory is reused for the next one.
            storage.batch = []
            storage.batchStart = -1
            do {
                storage.batch = try batch(start..<Swift.min(start + storage.batchSize, endIndex))
                storage.batchStart = start
            } catch {
                preconditionFailure("FetchResultsCollection could not load a batch: \(error)")
            }
        }
        let offset = position - start
        precondition(offset < storage.batch.count, "FetchResultsCollection: the row at position \(position) was deleted after the collection counted its rows; iterate it with for-in, which skips deleted rows, or fetch again")
        return storage.batch[offset]
    }

    @usableFromInline
    func batch(_ range: Range<Int>) throws -> [Element] {
        try storage.load(range)
    }

    /// Iterates the collection batch by batch with batches of its own, handing each element over: an
    /// element the loop does not keep is released when the loop moves on rather than with its whole
    /// batch. Freeing objects while the next ones are allocated keeps the allocator in its thread cache.
    /// Inlinable, so that the iterator is specialised for the element type where it is used (generic
    /// array operations cost hundreds of instructions per element).
    @inlinable
    public func makeIterator() -> Iterator { Iterator(self) }

    /// The iterator of a ``FetchResultsCollection``: see ``makeIterator()``.
    public struct Iterator: IteratorProtocol {
        @usableFromInline let collection: FetchResultsCollection
        @usableFromInline var nextBatchStart: Int
        /// What is left of the current batch, in reverse order.
        @usableFromInline var remaining: [Element] = []

        @inlinable
        init(_ collection: FetchResultsCollection) {
            self.collection = collection
            nextBatchStart = collection.startIndex
        }

        /// The next element, loading the next batch when the current one is used up. A store failure
        /// while loading a batch stops the program, as in ``FetchResultsCollection/subscript(_:)``.
        @inlinable
        public mutating func next() -> Element? {
            // A batch can come back short (or empty) when rows were deleted since the count was taken.
            while remaining.isEmpty {
                guard nextBatchStart < collection.endIndex else { return nil }
                let size = Swift.min(collection.storage.batchSize, ModelContext.iterationBatchLimit)
                let end = Swift.min(nextBatchStart + size, collection.endIndex)
                do {
                    remaining = try collection.batch(nextBatchStart..<end)
                } catch {
                    preconditionFailure("FetchResultsCollection could not load a batch: \(error)")
                }
                nextBatchStart = end
                remaining.reverse()
            }
            return remaining.popLast()
        }
    }
}

/// Where the previous batch of a lazily fetched collection ended, so that the next one can continue
/// from its last primary key.
private final class KeysetCursor {
    var end = 0
    var lastKey: Int64?
    /// The models of the batch being loaded (kept between batches for its capacity).
    var buffer = ContiguousArray<any PersistentModel>()
}

extension ModelContext {
    /// The changes that "anything may have changed" means for this context: every model it holds
    /// unchanged is updated, or deleted when its row is gone.
    private func everyRegisteredRow(_ changes: SavedChanges) -> SavedChanges {
        var changes = changes
        changes.refreshAll = false
        var held: [Schema.Entity: [Int64]] = [:]
        for model in registered.models {
            let data = model.persistentBackingData
            // Models whose deletion is pending too: a row gone elsewhere marks them (`rowDeletedElsewhere`).
            guard data.state == .persisted || data.state == .deleted, let entity = data.entity, case .row(let key)? = data.key else { continue }
            held[entity, default: []].append(key)
        }
        for (entity, keys) in held {
            do {
                let existing = Set(try store.primaryKeys(StoreQuery(entity: entity, primaryKeys: keys)))
                changes.updated[entity.name, default: []].formUnion(existing)
                changes.deleted[entity.name, default: []].formUnion(keys.filter { !existing.contains($0) })
            } catch {
                Self.logger.error("Checking which \(entity.name) rows another process changed failed: \(error)")
            }
        }
        return changes
    }
}
