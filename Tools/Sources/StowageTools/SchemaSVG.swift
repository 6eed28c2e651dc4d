import StowageCore

/// The schema as an SVG diagram, laid out here (no Graphviz needed).
///
/// Each entity is a box: its name (and `: Superentity`), then its own attributes (`name: Type`, `?` for an
/// optional, `unique` for a unique one) and its own relationships (`name → Destination`, `[Destination]`
/// for a to-many one). An inherited attribute or relationship is shown in its superentity's box only.
///
/// A relationship and its inverse are one edge between the rows that declare them, labelled beside each
/// row with its name (and its delete rule when it is not `nullify`), with a bar at a to-one end and a
/// crow's foot at a to-many end. A relationship without an inverse ends at its destination's header.
/// Inheritance is a dashed edge ending in a hollow triangle at the superentity's header; the edges from
/// its subentities share that triangle.
///
/// Layout: each group of connected entities in columns, by breadth-first distance from the entities on
/// the "one" side of to-many relationships and on no "many" side (or from the most connected entity), so
/// that every edge joins neighbouring columns or two boxes of one column. A column that makes the group
/// taller than 10:16 gives the boxes whose neighbours are all in one column to that column's other side.
/// Boxes are ordered within their columns to reduce crossings, then moved up or down to straighten the
/// edges. Edges are orthogonal: a vertical segment on a track of its own between the columns, tracks
/// ordered to reduce crossings. The groups are packed into rows, largest first, so that the drawing is
/// about 16:10. The same description always gives the same text.
///
/// The drawing has presentation attributes only (no `style`, scripts, fonts or images), and classes a
/// page can style: `schema`, `background`, `entity`, `entity-box`, `entity-header`, `entity-outline`,
/// `entity-name`, `superentity`, `attribute`, `relationship`, `unique`, `edge`, `inheritance`,
/// `edge-label`, `marker`.
package enum SchemaSVG {
    /// - Parameter link: the URL each entity box links to (its table page), or nil for no link. It is
    ///   given the entity's name.
    package static func render(_ description: StoreDescription, link: (String) -> String? = { _ in nil }) -> String {
        var diagram = Diagram(description)
        diagram.layOut()
        return diagram.svg(link: link)
    }
}

// MARK: - Model

/// Sizes, in pixels. Text widths are estimated for a monospace font (0.6 em a character).
private enum Metric {
    static let charWidth = 7.2  // 12 px
    static let nameCharWidth = 7.8  // 13 px, bold
    static let labelCharWidth = 6.0  // 10 px
    static let paddingX = 10.0
    static let headerHeight = 26.0
    static let rowHeight = 16.0
    static let bodyPadding = 6.0
    static let minimumBoxWidth = 120.0
    /// Between two boxes of a column.
    static let boxGap = 28.0
    /// From a box's side to the start of a label, past the marker.
    static let markerLength = 14.0
    static let trackSpacing = 10.0
    static let minimumZone = 24.0
    static let componentGap = 56.0
    static let margin = 20.0
    /// The width over the height the packing of unconnected groups aims at.
    static let aspect = 1.6
}

private enum Palette {
    static let background = "#ffffff"
    static let box = "#ffffff"
    static let boxStroke = "#4a6785"
    static let header = "#dbe7f5"
    static let text = "#1f2933"
    static let muted = "#6b7785"
    static let separator = "#c5d0dc"
    static let edge = "#5c6b7a"
    static let label = "#3e4c59"
    static let fontFamily = "ui-monospace, SFMono-Regular, Menlo, Consolas, Liberation Mono, DejaVu Sans Mono, monospace"
}

private enum Marker { case none, one, many, inherits }

private struct Row {
    var text: String
    var note: String?
    var isRelationship: Bool
    var name: String
}

private struct Box {
    var name: String
    var superentity: String?
    var table: String
    var rows: [Row]
    var attributeCount: Int
    var width: Double
    var height: Double
    var component = 0
    var layer = 0
    var x = 0.0
    var y = 0.0

    var header: String { name + (superentity.map { " : \($0)" } ?? "") }

    static func rowCenter(_ row: Int) -> Double {
        Metric.headerHeight + Metric.bodyPadding + Metric.rowHeight * (Double(row) + 0.5)
    }
}

/// One end of an edge: at a box's row (a relationship) or its header.
private struct End {
    var box: Int
    var row: Int?
    var label: String?
    var marker: Marker
    /// 1: leaves the box's right side; -1: its left side.
    var side = 1.0
    /// From the box's top.
    var offset = 0.0
}

private struct Edge {
    var a: End
    var b: End
    var isInheritance: Bool
    var title: String
    /// Which end is the parent for the layering (the "one" side, the superentity), if either.
    var parentIsB: Bool?
    var points: [(x: Double, y: Double)] = []
}

/// The part of an edge (or of the inheritance edges to one superentity) between two columns, or beside
/// one: its vertical segment on a track, and its horizontal stubs from the boxes.
private struct Segment {
    var edges: [Int]
    var channel: Int
    /// The heights of the stubs from the left column's boxes, and to the right column's.
    var leftY: [Double]
    var rightY: [Double]
    var superentity: Int?
    var low: Double
    var high: Double
    var track = 0

    /// Whether the two vertical segments would touch on one track.
    func overlaps(_ other: Segment) -> Bool { low <= other.high + 6 && other.low <= high + 6 }

    /// With this segment's track left of `other`'s: the crossings of this one's right stubs and the
    /// other's vertical, and of the other's left stubs and this one's vertical; and, weighing more, a left
    /// stub of the other running over a right stub of this one at the same height.
    func cost(before other: Segment) -> Int {
        guard overlaps(other) else { return 0 }
        var cost = 0
        for y in rightY {
            if y > other.low + 0.5, y < other.high - 0.5 { cost += 1 }
            if other.leftY.contains(where: { abs($0 - y) < 2 }) { cost += 100 }
        }
        for y in other.leftY where y > low + 0.5 && y < high - 0.5 { cost += 1 }
        return cost
    }

    /// Puts the segments of one channel on tracks (0 the leftmost): in an order that costs least, each
    /// segment inserted where it costs least, three times over; then each on the first track right of
    /// the earlier ones it overlaps. Returns the number of tracks.
    static func assignTracks(_ segments: inout [Segment]) -> Int {
        let indices = segments.indices.sorted {
            (segments[$0].low, segments[$0].high, segments[$0].edges[0]) < (segments[$1].low, segments[$1].high, segments[$1].edges[0])
        }
        var sequence: [Int] = []
        func insert(_ segment: Int) {
            var (best, bestCost) = (0, Int.max)
            for position in 0...sequence.count {
                let total = sequence[..<position].reduce(0) { $0 + segments[$1].cost(before: segments[segment]) }
                    + sequence[position...].reduce(0) { $0 + segments[segment].cost(before: segments[$1]) }
                if total < bestCost { (best, bestCost) = (position, total) }
            }
            sequence.insert(segment, at: best)
        }
        for segment in indices { insert(segment) }
        for _ in 0..<2 {
            for segment in indices {
                sequence.removeAll { $0 == segment }
                insert(segment)
            }
        }
        var count = 0
        for (number, segment) in sequence.enumerated() {
            let track = sequence[..<number].filter { segments[$0].overlaps(segments[segment]) }.map { segments[$0].track + 1 }.max() ?? 0
            segments[segment].track = track
            count = max(count, track + 1)
        }
        return count
    }
}

private struct Diagram {
    var boxes: [Box] = []
    var edges: [Edge] = []
    /// The edges at each box.
    var incident: [[Int]] = []
    var width = 0.0
    var height = 0.0

    init(_ description: StoreDescription) {
        let entities = description.entities.sorted { $0.name < $1.name }
        var indexByName: [String: Int] = [:]
        for (index, entity) in entities.enumerated() where indexByName[entity.name] == nil { indexByName[entity.name] = index }

        func superIndex(_ index: Int) -> Int? {
            guard let name = entities[index].superentity, let parent = indexByName[name], parent != index else { return nil }
            return parent
        }
        /// The entity (`index` or one of its superentities) whose box shows the relationship `name`.
        func declaring(_ index: Int, _ name: String) -> Int {
            var current = index
            var steps = 0
            while let parent = superIndex(current), steps < entities.count, entities[parent].relationships.contains(where: { $0.name == name }) {
                current = parent
                steps += 1
            }
            return current
        }

        for (index, entity) in entities.enumerated() {
            var attributes = entity.attributes
            var relationships = entity.relationships
            if let parent = superIndex(index) {
                let inheritedAttributes = Set(entities[parent].attributes.map(\.name))
                let inheritedRelationships = Set(entities[parent].relationships.map(\.name))
                attributes.removeAll { inheritedAttributes.contains($0.name) }
                relationships.removeAll { inheritedRelationships.contains($0.name) }
            }
            let rows = attributes.map { attribute in
                Row(text: "\(attribute.name): \(attribute.type)\(attribute.isOptional ? "?" : "")",
                    note: attribute.isUnique ? "unique" : nil, isRelationship: false, name: attribute.name)
            } + relationships.map { relationship in
                Row(text: "\(relationship.name) → \(relationship.isToMany ? "[\(relationship.destination)]" : relationship.destination)",
                    note: nil, isRelationship: true, name: relationship.name)
            }
            var box = Box(name: entity.name, superentity: entity.superentity, table: entity.table, rows: rows,
                          attributeCount: attributes.count, width: 0, height: 0)
            var textWidth = Metric.nameCharWidth * Double(textColumns(box.header))
            for row in rows {
                textWidth = max(textWidth, Metric.charWidth * Double(textColumns(row.text) + (row.note.map { textColumns($0) + 2 } ?? 0)))
            }
            box.width = max(Metric.minimumBoxWidth, (textWidth + 2 * Metric.paddingX).rounded(.up))
            box.height = rows.isEmpty
                ? Metric.headerHeight + Metric.bodyPadding
                : Metric.headerHeight + 2 * Metric.bodyPadding + Metric.rowHeight * Double(rows.count)
            boxes.append(box)
        }

        func row(_ box: Int, _ relationship: String) -> Int? {
            boxes[box].rows.firstIndex { $0.isRelationship && $0.name == relationship }
        }
        func label(_ relationship: StoreDescription.Relationship) -> String {
            relationship.name + (relationship.deleteRule == "nullify" ? "" : " (\(relationship.deleteRule))")
        }

        // Relationships: each once, with its inverse.
        var drawn = Set<String>()
        for (index, entity) in entities.enumerated() {
            for relationship in entity.relationships where declaring(index, relationship.name) == index {
                guard drawn.insert("\(index).\(relationship.name)").inserted, let destination = indexByName[relationship.destination] else { continue }
                var far = End(box: destination, row: nil, label: nil, marker: relationship.isToMany ? .many : .one)
                var nearMarker = Marker.none
                var title = "\(entity.name).\(relationship.name) → \(relationship.destination)"
                if let inverseName = relationship.inverse,
                   let inverse = entities[destination].relationships.first(where: { $0.name == inverseName }) {
                    let owner = declaring(destination, inverseName)
                    far.box = owner
                    far.row = row(owner, inverseName)
                    nearMarker = inverse.isToMany ? .many : .one
                    title = "\(entity.name).\(relationship.name) ↔ \(entities[owner].name).\(inverseName)"
                    // An inverse already drawn (the inverse of two relationships) or the relationship itself
                    // shares its row and is labelled once.
                    if drawn.insert("\(owner).\(inverseName)").inserted { far.label = label(inverse) }
                }
                let parentIsB: Bool? = if !relationship.isToMany, far.marker == .one, nearMarker != .one {
                    true
                } else if relationship.isToMany, nearMarker == .one {
                    false
                } else {
                    nil
                }
                edges.append(Edge(
                    a: End(box: index, row: row(index, relationship.name), label: label(relationship), marker: nearMarker),
                    b: far, isInheritance: false, title: title, parentIsB: parentIsB))
            }
        }
        for index in entities.indices {
            guard let parent = superIndex(index) else { continue }
            edges.append(Edge(
                a: End(box: index, row: nil, label: nil, marker: .none), b: End(box: parent, row: nil, label: nil, marker: .inherits),
                isInheritance: true, title: "\(entities[index].name) inherits from \(entities[parent].name)", parentIsB: true))
        }
        incident = Array(repeating: [], count: boxes.count)
        for (index, edge) in edges.enumerated() {
            incident[edge.a.box].append(index)
            if edge.b.box != edge.a.box { incident[edge.b.box].append(index) }
        }
    }
}

// MARK: - Layout

extension Diagram {
    mutating func layOut() {
        let count = boxes.count
        guard count > 0 else {
            width = 240
            height = 64
            return
        }
        var neighbours = [[Int]](repeating: [], count: count)
        var isParent = [Bool](repeating: false, count: count)
        var isChild = [Bool](repeating: false, count: count)
        for edge in edges where edge.a.box != edge.b.box {
            neighbours[edge.a.box].append(edge.b.box)
            neighbours[edge.b.box].append(edge.a.box)
            if let parentIsB = edge.parentIsB {
                isParent[parentIsB ? edge.b.box : edge.a.box] = true
                isChild[parentIsB ? edge.a.box : edge.b.box] = true
            }
        }
        neighbours = neighbours.map { Array(Set($0)).sorted() }

        // Connected groups, each laid out on its own.
        var components: [[Int]] = []
        var seen = [Bool](repeating: false, count: count)
        for start in 0..<count where !seen[start] {
            seen[start] = true
            var members = [start]
            var head = 0
            while head < members.count {
                for next in neighbours[members[head]] where !seen[next] {
                    seen[next] = true
                    members.append(next)
                }
                head += 1
            }
            components.append(members.sorted())
        }
        var sizes: [(width: Double, height: Double)] = []
        for (number, members) in components.enumerated() {
            for box in members { boxes[box].component = number }
            sizes.append(layOutComponent(members, neighbours: neighbours, isParent: isParent, isChild: isChild))
        }

        // Larger groups first, then rows of groups about 16:10.
        let order = components.indices.sorted { (-components[$0].count, $0) < (-components[$1].count, $1) }
        let placement = pack(order.map { sizes[$0] })
        var offsets = [(x: Double, y: Double)](repeating: (0, 0), count: components.count)
        for (position, component) in order.enumerated() {
            offsets[component] = (placement.origins[position].x + Metric.margin, placement.origins[position].y + Metric.margin)
        }
        for index in boxes.indices {
            let offset = offsets[boxes[index].component]
            boxes[index].x += offset.x
            boxes[index].y += offset.y
        }
        for index in edges.indices {
            let offset = offsets[boxes[edges[index].a.box].component]
            edges[index].points = edges[index].points.map { ($0.x + offset.x, $0.y + offset.y) }
        }
        width = (placement.width + 2 * Metric.margin).rounded(.up)
        height = (placement.height + 2 * Metric.margin).rounded(.up)
    }

    /// Lays out one connected group with its top left corner at (0, 0), and returns its size.
    private mutating func layOutComponent(_ members: [Int], neighbours: [[Int]], isParent: [Bool], isChild: [Bool]) -> (width: Double, height: Double) {
        // Layers: breadth-first from the parents that are no one's child (not two neighbouring ones), or
        // else from the most connected entity. Neighbours are then at most one layer apart.
        var roots: [Int] = []
        for box in members where isParent[box] && !isChild[box] && !roots.contains(where: { neighbours[box].contains($0) }) {
            roots.append(box)
        }
        if roots.isEmpty {
            var best = members[0]
            for box in members where neighbours[box].count > neighbours[best].count { best = box }
            roots = [best]
        }
        var visited = Set(roots)
        var order = roots
        for root in roots { boxes[root].layer = 0 }
        var head = 0
        while head < order.count {
            let box = order[head]
            for next in neighbours[box] where visited.insert(next).inserted {
                boxes[next].layer = boxes[box].layer + 1
                order.append(next)
            }
            head += 1
        }
        balanceLayers(order, neighbours: neighbours)
        let layerCount = (members.map { boxes[$0].layer }.max() ?? 0) + 1
        var layers = [[Int]](repeating: [], count: layerCount)
        for box in order { layers[boxes[box].layer].append(box) }
        let componentEdges = members.flatMap { box in incident[box].filter { edges[$0].a.box == box } }.sorted()

        orderWithinLayers(&layers)

        placePorts(members, componentEdges)

        // Heights: stacked, then moved towards the ports they link to, keeping their order.
        for layer in layers {
            var top = 0.0
            for box in layer {
                boxes[box].y = top
                top += boxes[box].height + Metric.boxGap
            }
        }
        for _ in 0..<4 {
            for layer in stride(from: 1, to: layerCount, by: 1) { align(layers[layer], to: [layer - 1]) }
            for layer in stride(from: layerCount - 2, through: 0, by: -1) { align(layers[layer], to: [layer + 1]) }
        }
        for layer in stride(from: 1, to: layerCount, by: 1) { align(layers[layer], to: [layer - 1, layer + 1]) }
        for _ in 0..<2 { for layer in layers { straighten(layer) } }
        let top = members.map { boxes[$0].y }.min() ?? 0
        for box in members { boxes[box].y -= top }

        // Tracks: each edge's vertical segment in the channel right of its left column, apart from the
        // others it would overlap. The inheritance edges to one superentity in a channel share a track.
        var segments: [Segment] = []
        var straight: [Int] = []
        for index in componentEdges {
            let edge = edges[index]
            let (yA, yB) = (boxes[edge.a.box].y + edge.a.offset, boxes[edge.b.box].y + edge.b.offset)
            let (layerA, layerB) = (boxes[edge.a.box].layer, boxes[edge.b.box].layer)
            var segment: Segment
            if layerA == layerB {
                segment = Segment(edges: [index], channel: layerA, leftY: [yA, yB], rightY: [], low: min(yA, yB), high: max(yA, yB))
            } else {
                let (left, right) = layerA < layerB ? (yA, yB) : (yB, yA)
                if abs(left - right) < 0.5 {
                    straight.append(index)
                    continue
                }
                segment = Segment(edges: [index], channel: min(layerA, layerB), leftY: [left], rightY: [right], low: min(left, right), high: max(left, right))
            }
            if edge.isInheritance {
                segment.superentity = edge.b.box
                if let shared = segments.firstIndex(where: { $0.superentity == edge.b.box && $0.channel == segment.channel }) {
                    segments[shared].edges += segment.edges
                    segments[shared].leftY += segment.leftY.filter { y in !segments[shared].leftY.contains { abs($0 - y) < 0.5 } }
                    segments[shared].rightY += segment.rightY.filter { y in !segments[shared].rightY.contains { abs($0 - y) < 0.5 } }
                    segments[shared].low = min(segments[shared].low, segment.low)
                    segments[shared].high = max(segments[shared].high, segment.high)
                    continue
                }
            }
            segments.append(segment)
        }
        var trackCount = [Int](repeating: 0, count: layerCount)
        for channel in 0..<layerCount {
            var inChannel = segments.filter { $0.channel == channel }
            trackCount[channel] = Segment.assignTracks(&inChannel)
            segments.removeAll { $0.channel == channel }
            segments += inChannel
        }

        // Columns: as wide as their widest box; channels as wide as their labels and tracks.
        var columnWidth = [Double](repeating: 0, count: layerCount)
        for box in members { columnWidth[boxes[box].layer] = max(columnWidth[boxes[box].layer], boxes[box].width) }
        var leftZone = [Double](repeating: Metric.minimumZone, count: layerCount)
        var rightZone = [Double](repeating: Metric.minimumZone, count: layerCount)
        for index in componentEdges {
            for end in [edges[index].a, edges[index].b] {
                let layer = boxes[end.box].layer
                let need = Metric.markerLength + (end.label.map { Metric.labelCharWidth * Double(textColumns($0)) + 8 } ?? 4)
                if end.side > 0 {
                    leftZone[layer] = max(leftZone[layer], columnWidth[layer] - boxes[end.box].width + need)
                } else if layer > 0 {
                    rightZone[layer - 1] = max(rightZone[layer - 1], need)
                }
            }
        }
        var channelWidth = [Double](repeating: 0, count: layerCount)
        for channel in 0..<layerCount {
            let tracks = Double(trackCount[channel]) * Metric.trackSpacing
            channelWidth[channel] = channel < layerCount - 1
                ? leftZone[channel] + tracks + rightZone[channel]
                : trackCount[channel] > 0 ? leftZone[channel] + tracks + 4 : 0
        }
        var columnX = [Double](repeating: 0, count: layerCount)
        for layer in stride(from: 1, to: layerCount, by: 1) {
            columnX[layer] = (columnX[layer - 1] + columnWidth[layer - 1] + channelWidth[layer - 1]).rounded(.up)
        }
        for box in members { boxes[box].x = columnX[boxes[box].layer] }

        // The polylines.
        func point(_ end: End) -> (x: Double, y: Double) {
            let box = boxes[end.box]
            return (end.side > 0 ? box.x + box.width : box.x, box.y + end.offset)
        }
        for index in straight {
            edges[index].points = edges[index].isInheritance ? [point(edges[index].b), point(edges[index].a)] : [point(edges[index].a), point(edges[index].b)]
        }
        for segment in segments {
            let x = columnX[segment.channel] + columnWidth[segment.channel] + leftZone[segment.channel]
                + (Double(segment.track) + 0.5) * Metric.trackSpacing
            for index in segment.edges {
                // From the superentity's end, so that the dashes of edges sharing a track coincide.
                let edge = edges[index]
                let (start, end) = edge.isInheritance ? (point(edge.b), point(edge.a)) : (point(edge.a), point(edge.b))
                edges[index].points = [start, (x, start.y), (x, end.y), end]
            }
        }

        let right = columnX[layerCount - 1] + columnWidth[layerCount - 1] + channelWidth[layerCount - 1]
        let bottom = members.map { boxes[$0].y + boxes[$0].height }.max() ?? 0
        return (right, bottom)
    }

    /// Orders the boxes of each layer by the mean place of their neighbours in the layer before (then
    /// after) and in the layer itself, a few times over.
    private func orderWithinLayers(_ layers: inout [[Int]]) {
        let layerCount = layers.count
        var position = [Int: Int]()
        func number(_ layer: [Int]) { for (index, box) in layer.enumerated() { position[box] = index } }
        for layer in layers { number(layer) }
        for _ in 0..<6 {
            for pass in 0..<2 {
                let sequence = pass == 0 ? Array(stride(from: 1, to: layerCount, by: 1)) : Array(stride(from: layerCount - 2, through: 0, by: -1))
                for layer in sequence {
                    let reference = pass == 0 ? layer - 1 : layer + 1
                    let keyed = layers[layer].map { box -> (Double, Int, Int) in
                        var sum = 0.0
                        var weight = 0.0
                        for (_, other) in endsAt(box) where [reference, layer].contains(boxes[other.box].layer) && other.box != box {
                            let offset = other.row.map(Box.rowCenter) ?? Metric.headerHeight / 2
                            sum += Double(position[other.box] ?? 0) + 0.8 * offset / boxes[other.box].height
                            weight += 1
                        }
                        let current = position[box] ?? 0
                        return (weight > 0 ? sum / weight : Double(current) + 0.4, current, box)
                    }
                    layers[layer] = keyed.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
                    number(layers[layer])
                }
            }
        }
    }

    /// The side of its box each end leaves from (towards the other end's column, or the right beside it)
    /// and its height there: its row's, or a place in the header, which the ends at a superentity share.
    private mutating func placePorts(_ members: [Int], _ componentEdges: [Int]) {
        for index in componentEdges {
            let (layerA, layerB) = (boxes[edges[index].a.box].layer, boxes[edges[index].b.box].layer)
            edges[index].a.side = layerA <= layerB ? 1 : -1
            edges[index].b.side = layerB <= layerA ? 1 : -1
            edges[index].a.offset = edges[index].a.row.map(Box.rowCenter) ?? 0
            edges[index].b.offset = edges[index].b.row.map(Box.rowCenter) ?? 0
            if edges[index].a.box == edges[index].b.box, edges[index].a.row != nil, edges[index].a.row == edges[index].b.row {
                // A relationship that is its own inverse: a loop from its row to the row's lower edge.
                edges[index].b.offset += Metric.rowHeight / 2
            }
        }
        // Ends at a header share its height; the ends at a superentity meet at one triangle.
        for box in members {
            for side in [-1.0, 1.0] {
                var slots: [[(edge: Int, isB: Bool)]] = []
                var inheritanceSlot: Int?
                for index in incident[box] {
                    for isB in [false, true] {
                        let end = isB ? edges[index].b : edges[index].a
                        guard end.box == box, end.row == nil, end.side == side else { continue }
                        if end.marker == .inherits {
                            if let slot = inheritanceSlot { slots[slot].append((index, isB)) } else {
                                inheritanceSlot = slots.count
                                slots.append([(index, isB)])
                            }
                        } else {
                            slots.append([(index, isB)])
                        }
                    }
                }
                let spacing = slots.count > 1 ? min(7, (Metric.headerHeight - 8) / Double(slots.count - 1)) : 0
                for (number, slot) in slots.enumerated() {
                    let offset = Metric.headerHeight / 2 + (Double(number) - Double(slots.count - 1) / 2) * spacing
                    for (index, isB) in slot {
                        if isB { edges[index].b.offset = offset } else { edges[index].a.offset = offset }
                    }
                }
            }
        }
    }

    /// While the tallest column makes the group taller than 10:16 of its width, moves one of its boxes
    /// whose neighbours are all in one column to that column's other side, when that column is lower.
    /// Neighbours stay in neighbouring columns.
    private mutating func balanceLayers(_ order: [Int], neighbours: [[Int]]) {
        let gap = Metric.boxGap
        for _ in 0..<(order.count * order.count) {
            let layerCount = (order.map { boxes[$0].layer }.max() ?? 0) + 1
            var heights = [Double](repeating: -gap, count: layerCount)
            var widths = [Double](repeating: 0, count: layerCount)
            for box in order {
                heights[boxes[box].layer] += boxes[box].height + gap
                widths[boxes[box].layer] = max(widths[boxes[box].layer], boxes[box].width)
            }
            let estimatedWidth = widths.reduce(0, +) + 200 * Double(layerCount - 1)
            var tallest = 0
            for layer in heights.indices where heights[layer] > heights[tallest] { tallest = layer }
            guard heights[tallest] * Metric.aspect > estimatedWidth else { return }
            var moved = false
            for box in order.reversed() where boxes[box].layer == tallest {
                let layersOfNeighbours = Set(neighbours[box].filter { $0 != box }.map { boxes[$0].layer })
                guard layersOfNeighbours.count == 1, let neighbourLayer = layersOfNeighbours.first, neighbourLayer != tallest else { continue }
                let target = 2 * neighbourLayer - tallest
                let targetHeight = target >= 0 && target < layerCount ? heights[target] : -gap
                guard targetHeight + boxes[box].height + gap < heights[tallest] else { continue }
                if target < 0 {
                    for other in order { boxes[other].layer += 1 }
                }
                boxes[box].layer = max(target, 0)
                moved = true
                break
            }
            if !moved { return }
        }
    }

    /// The ends of the edges at `box`, each with the edge's other end.
    private func endsAt(_ box: Int) -> [(own: End, other: End)] {
        incident[box].flatMap { index -> [(own: End, other: End)] in
            let edge = edges[index]
            var result: [(own: End, other: End)] = []
            if edge.a.box == box { result.append((edge.a, edge.b)) }
            if edge.b.box == box { result.append((edge.b, edge.a)) }
            return result
        }
    }

    /// Moves the boxes of a layer (top to bottom) as near as their order allows to where their ports
    /// would be level with the ports they link to in the `reference` layers.
    private mutating func align(_ layer: [Int], to reference: [Int]) {
        var desired: [Double] = []
        for box in layer {
            var sum = 0.0
            var count = 0.0
            for (own, other) in endsAt(box) where other.box != box && reference.contains(boxes[other.box].layer) {
                sum += boxes[other.box].y + other.offset - own.offset
                count += 1
            }
            desired.append(count > 0 ? sum / count : boxes[box].y)
        }
        // Least squares under "each box below the one before it" (pool adjacent violators).
        var offsets: [Double] = []
        var stacked = 0.0
        for box in layer {
            offsets.append(stacked)
            stacked += boxes[box].height + Metric.boxGap
        }
        var blocks: [(sum: Double, count: Double, size: Int)] = []
        for (index, value) in desired.enumerated() {
            blocks.append((value - offsets[index], 1, 1))
            while blocks.count > 1, blocks[blocks.count - 2].sum / blocks[blocks.count - 2].count > blocks[blocks.count - 1].sum / blocks[blocks.count - 1].count {
                let last = blocks.removeLast()
                blocks[blocks.count - 1].sum += last.sum
                blocks[blocks.count - 1].count += last.count
                blocks[blocks.count - 1].size += last.size
            }
        }
        var index = 0
        for block in blocks {
            for _ in 0..<block.size {
                boxes[layer[index]].y = (block.sum / block.count + offsets[index]).rounded()
                index += 1
            }
        }
    }

    /// Moves each box of a column that has no level edge to another column by the least that makes one
    /// level, when that is less than 60 pixels and the box stays clear of its neighbours in the column.
    private mutating func straighten(_ layer: [Int]) {
        for (index, box) in layer.enumerated() {
            let deltas = endsAt(box).filter { boxes[$0.other.box].layer != boxes[box].layer }
                .map { boxes[$0.other.box].y + $0.other.offset - boxes[box].y - $0.own.offset }
            guard !deltas.contains(where: { abs($0) < 0.5 }) else { continue }
            let above = index > 0 ? boxes[layer[index - 1]].y + boxes[layer[index - 1]].height + Metric.boxGap : -Double.infinity
            let below = index + 1 < layer.count ? boxes[layer[index + 1]].y - Metric.boxGap : Double.infinity
            let fitting = deltas.filter { abs($0) < 60 && boxes[box].y + $0 >= above && boxes[box].y + boxes[box].height + $0 <= below }
            if let delta = fitting.min(by: { (abs($0), $0) < (abs($1), $1) }) { boxes[box].y += delta }
        }
    }

    /// Shelves of groups, left to right and top to bottom, at the row width that gives a drawing nearest 16:10.
    private func pack(_ sizes: [(width: Double, height: Double)]) -> (origins: [(x: Double, y: Double)], width: Double, height: Double) {
        func shelves(_ limit: Double) -> (origins: [(x: Double, y: Double)], width: Double, height: Double) {
            var origins: [(x: Double, y: Double)] = []
            var (x, y, rowHeight, width) = (0.0, 0.0, 0.0, 0.0)
            for size in sizes {
                if x > 0, x + size.width > limit {
                    y += rowHeight + Metric.componentGap
                    (x, rowHeight) = (0, 0)
                }
                origins.append((x, y))
                width = max(width, x + size.width)
                rowHeight = max(rowHeight, size.height)
                x += size.width + Metric.componentGap
            }
            return (origins, width, y + rowHeight)
        }
        // Row widths to try: those of runs of groups from each of the first ones.
        var limits: [Double] = []
        for start in sizes.indices.prefix(16) {
            var total = -Metric.componentGap
            for size in sizes[start...] {
                total += size.width + Metric.componentGap
                limits.append(total)
            }
        }
        var best = shelves(limits.max() ?? 0)
        var bestScore = Double.infinity
        for limit in Set(limits).sorted() {
            let candidate = shelves(limit)
            let ratio = (candidate.width + 2 * Metric.margin) / (candidate.height + 2 * Metric.margin)
            let score = max(ratio / Metric.aspect, Metric.aspect / ratio)
            if score < bestScore - 1e-9 {
                best = candidate
                bestScore = score
            }
        }
        return best
    }
}

// MARK: - SVG

extension Diagram {
    func svg(link: (String) -> String?) -> String {
        let names = boxes.map(\.name)
        let summary = names.isEmpty
            ? "Diagram of the store's models: none"
            : "Diagram of the store's \(names.count == 1 ? "model" : "\(names.count) models"): \(names.joined(separator: ", "))"
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"schema\" viewBox=\"0 0 \(format(width)) \(format(height))\""
            + " width=\"\(format(width))\" height=\"\(format(height))\" role=\"img\" aria-label=\"\(escape(summary))\""
            + " font-family=\"\(Palette.fontFamily)\" font-size=\"12\">\n"
        out += "<rect class=\"background\" width=\"\(format(width))\" height=\"\(format(height))\" fill=\"\(Palette.background)\"/>\n"
        if boxes.isEmpty {
            out += "<text x=\"\(format(Metric.margin))\" y=\"\(format(Metric.margin + 16))\" fill=\"\(Palette.muted)\">No models</text>\n"
        }
        for box in boxes { out += entity(box, link: link(box.name)) }
        for edge in edges { out += self.edge(edge) }
        out += "</svg>\n"
        return out
    }

    private func entity(_ box: Box, link: String?) -> String {
        let (x, y, w, h) = (box.x, box.y, box.width, box.height)
        var out = ""
        if let link { out += "<a href=\"\(escape(link))\">\n" }
        out += "<g class=\"entity\" data-entity=\"\(escape(box.name))\">\n"
        let title = box.name + (box.superentity.map { ", a kind of \($0)" } ?? "") + (box.table == box.name ? "" : " (table \(box.table))")
        out += "<title>\(escape(title))</title>\n"
        out += "<rect class=\"entity-box\" x=\"\(format(x))\" y=\"\(format(y))\" width=\"\(format(w))\" height=\"\(format(h))\" rx=\"4\" fill=\"\(Palette.box)\"/>\n"
        let headerBottom = y + Metric.headerHeight
        out += "<path class=\"entity-header\" d=\"M\(format(x)),\(format(headerBottom))V\(format(y + 4))Q\(format(x)),\(format(y)) \(format(x + 4)),\(format(y))"
            + "H\(format(x + w - 4))Q\(format(x + w)),\(format(y)) \(format(x + w)),\(format(y + 4))V\(format(headerBottom))Z\" fill=\"\(Palette.header)\"/>\n"
        out += "<rect class=\"entity-outline\" x=\"\(format(x))\" y=\"\(format(y))\" width=\"\(format(w))\" height=\"\(format(h))\" rx=\"4\" fill=\"none\" stroke=\"\(Palette.boxStroke)\"/>\n"
        if !box.rows.isEmpty {
            out += "<line x1=\"\(format(x))\" y1=\"\(format(headerBottom))\" x2=\"\(format(x + w))\" y2=\"\(format(headerBottom))\" stroke=\"\(Palette.boxStroke)\"/>\n"
        }
        out += "<text class=\"entity-name\" x=\"\(format(x + Metric.paddingX))\" y=\"\(format(y + Metric.headerHeight / 2 + 4.5))\" font-size=\"13\" font-weight=\"bold\" fill=\"\(Palette.text)\">"
            + escape(box.name)
        if let superentity = box.superentity {
            out += "<tspan class=\"superentity\" font-weight=\"normal\" fill=\"\(Palette.muted)\"> : \(escape(superentity))</tspan>"
        }
        out += "</text>\n"
        if box.attributeCount > 0, box.attributeCount < box.rows.count {
            let lineY = y + Metric.headerHeight + Metric.bodyPadding + Metric.rowHeight * Double(box.attributeCount)
            out += "<line x1=\"\(format(x + 6))\" y1=\"\(format(lineY))\" x2=\"\(format(x + w - 6))\" y2=\"\(format(lineY))\" stroke=\"\(Palette.separator)\" stroke-dasharray=\"3 3\"/>\n"
        }
        for (index, row) in box.rows.enumerated() {
            let baseline = y + Box.rowCenter(index) + 4
            out += "<text class=\"\(row.isRelationship ? "relationship" : "attribute")\" x=\"\(format(x + Metric.paddingX))\" y=\"\(format(baseline))\" fill=\"\(Palette.text)\">"
                + escape(row.text)
            if let note = row.note {
                out += "<tspan class=\"unique\" dx=\"\(format(2 * Metric.charWidth))\" font-style=\"italic\" fill=\"\(Palette.muted)\">\(escape(note))</tspan>"
            }
            out += "</text>\n"
        }
        out += "</g>\n"
        if link != nil { out += "</a>\n" }
        return out
    }

    private func edge(_ edge: Edge) -> String {
        guard let first = edge.points.first else { return "" }
        var out = "<g class=\"edge\(edge.isInheritance ? " inheritance" : "")\">\n<title>\(escape(edge.title))</title>\n"
        var path = "M\(format(first.x)),\(format(first.y))"
        for point in edge.points.dropFirst() { path += "L\(format(point.x)),\(format(point.y))" }
        out += "<path d=\"\(path)\" fill=\"none\" stroke=\"\(Palette.edge)\" stroke-width=\"1.2\"\(edge.isInheritance ? " stroke-dasharray=\"6 4\"" : "")/>\n"
        for end in [edge.a, edge.b] {
            let box = boxes[end.box]
            let (x, y, d) = (end.side > 0 ? box.x + box.width : box.x, box.y + end.offset, end.side)
            switch end.marker {
            case .none:
                break
            case .one:
                out += "<path class=\"marker\" d=\"M\(format(x + d * 7)),\(format(y - 5))V\(format(y + 5))\" fill=\"none\" stroke=\"\(Palette.edge)\" stroke-width=\"1.2\"/>\n"
            case .many:
                out += "<path class=\"marker\" d=\"M\(format(x)),\(format(y - 5))L\(format(x + d * 10)),\(format(y))L\(format(x)),\(format(y + 5))\" fill=\"none\" stroke=\"\(Palette.edge)\" stroke-width=\"1.2\"/>\n"
            case .inherits:
                out += "<path class=\"marker\" d=\"M\(format(x)),\(format(y))L\(format(x + d * 11)),\(format(y - 6))L\(format(x + d * 11)),\(format(y + 6))Z\" fill=\"\(Palette.background)\" stroke=\"\(Palette.edge)\" stroke-width=\"1.2\"/>\n"
            }
            if let label = end.label {
                out += "<text class=\"edge-label\" x=\"\(format(x + d * Metric.markerLength))\" y=\"\(format(y - 4))\" font-size=\"10\" fill=\"\(Palette.label)\""
                    + "\(d > 0 ? "" : " text-anchor=\"end\"")>\(escape(label))</text>\n"
            }
        }
        out += "</g>\n"
        return out
    }
}

// MARK: - Text

/// How many monospace columns `text` takes: two for a wide (East Asian or emoji) character, none for a
/// combining mark.
private func textColumns(_ text: String) -> Int {
    var columns = 0
    for scalar in text.unicodeScalars {
        switch scalar.value {
        case 0x0300...0x036F, 0x200B...0x200F, 0xFE00...0xFE0F: break
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD: columns += 2
        default: columns += 1
        }
    }
    return columns
}

/// `text` for HTML or XML character data or a quoted attribute value, scalar by scalar: a quote
/// followed by a combining mark is one `Character` but still ends an attribute value. The schema's SVG
/// and Stowage Studio's pages escape with it.
package func escape(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&#39;"
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out
}

/// A coordinate with at most one decimal.
private func format(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    let magnitude = abs(tenths)
    let sign = tenths < 0 ? "-" : ""
    return magnitude % 10 == 0 ? "\(sign)\(magnitude / 10)" : "\(sign)\(magnitude / 10).\(magnitude % 10)"
}
