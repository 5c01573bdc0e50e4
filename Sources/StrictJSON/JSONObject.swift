/// A JSON object that keeps its members in document order.
///
/// Iteration, `keys` and serialization (unless keys are sorted) follow insertion order. Lookup by key is O(1) for
/// large objects (an index by key is kept above `indexedCount` members) and a scan of at most that many keys for
/// small ones, which saves a hash table per object: an event log of a million two-field events is a million
/// small objects. Keys are Swift `String`s, so two keys that are canonically equivalent Unicode (for example a
/// precomposed "é" and "e" followed by a combining accent) count as the same key.
///
/// Equality follows JSON semantics: two objects are equal when they have the same set of keys and equal values
/// for every key; the order of the members does not matter.
public struct JSONObject: Sendable, Equatable, Sequence {
    /// One member of the object.
    public typealias Element = (key: String, value: JSONValue)
    /// Iterates over the members in order.
    public typealias Iterator = IndexingIterator<[Element]>

    /// Members in order.
    private var entries: [Element]
    /// Position of every key in `entries`, kept only for objects of more than `indexedCount` members.
    private var positions: [String: Int]?
    /// Objects up to this many members are searched key by key.
    static let indexedCount = 8

    /// Creates an object from members in order. If a key occurs more than once, the last value wins and keeps
    /// the position of the first occurrence.
    public init(_ entries: [(key: String, value: JSONValue)] = []) {
        self.entries = []
        self.entries.reserveCapacity(entries.count)
        for entry in entries {
            self[entry.key] = entry.value
        }
    }

    /// The position of `key` in `entries`.
    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return entries.firstIndex { $0.key == key }
    }

    /// `positions` for the current members, or nil when the object is small enough to scan.
    private static func index(of entries: [Element]) -> [String: Int]? {
        guard entries.count > indexedCount else { return nil }
        var positions: [String: Int] = [:]
        positions.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() { positions[entry.key] = index }
        return positions
    }

    /// The keys in order.
    public var keys: [String] {
        entries.map(\.key)
    }

    /// The number of members.
    public var count: Int {
        entries.count
    }

    /// The value for `key`, or `nil` if the object has no such member.
    ///
    /// Setting a value replaces an existing member in place or appends a new member at the end; setting `nil`
    /// removes the member. To store a JSON `null`, assign `.null`.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let position = position(of: key) else { return nil }
            return entries[position].value
        }
        set {
            if let newValue {
                if let position = position(of: key) {
                    entries[position].value = newValue
                } else {
                    entries.append((key: key, value: newValue))
                    if positions != nil {
                        positions?[key] = entries.count - 1
                    } else if entries.count > Self.indexedCount {
                        positions = Self.index(of: entries)
                    }
                }
            } else if let position = position(of: key) {
                entries.remove(at: position)
                positions = Self.index(of: entries)
            }
        }
    }

    /// Returns an iterator over the members in order.
    public func makeIterator() -> Iterator {
        entries.makeIterator()
    }

    /// The number of members (lets `Array(object)` reserve the right capacity).
    public var underestimatedCount: Int {
        entries.count
    }

    /// Members in order, for the writer.
    var members: [Element] {
        entries
    }

    /// Two objects are equal when they have the same keys with equal values, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.entries.count == rhs.entries.count else { return false }
        for (key, value) in lhs.entries {
            guard let position = rhs.position(of: key), rhs.entries[position].value == value else { return false }
        }
        return true
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// An object with the literal's keys in the order written.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.map { (key: $0.0, value: $0.1) })
    }
}

extension JSONObject {
    /// Whether the object has no members.
    public var isEmpty: Bool { count == 0 }
}
