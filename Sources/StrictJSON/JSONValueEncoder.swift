/// Encodes an `Encodable` value as a ``JSONValue``: structures become objects of their stored properties (as
/// the compiler synthesises `encode(to:)`), so a value's JSON form cannot leave out a field a type gains later.
///
/// Numbers are `Double`s, as in every ``JSONValue``; an integer no `Double` holds exactly is written as a string
/// of its digits, so two values never share a form. A ``JSONValue`` or ``JSONObject`` inside the value is taken
/// as it is, without a round trip through text.
public enum JSONValueEncoder {
    /// The JSON form of `value`.
    public static func encode(_ value: some Encodable) throws -> JSONValue {
        let root = Slot()
        try value.encode(to: ValueEncoder(slot: root, codingPath: []))
        return root.value
    }
}

/// Where one encoded value is written; containers fill theirs as the value's members are encoded.
private final class Slot {
    var content = Content.value(.null)

    enum Content {
        case value(JSONValue)
        case object([(String, Slot)])
        case array([Slot])
    }

    var value: JSONValue {
        switch content {
        case .value(let value): value
        case .object(let members): .object(JSONObject(members.map { (key: $0.0, value: $0.1.value) }))
        case .array(let elements): .array(elements.map(\.value))
        }
    }

    /// A new slot for member `key`, in the object this slot now holds.
    func member(_ key: String) -> Slot {
        let slot = Slot()
        if case .object(var members) = content {
            members.append((key, slot))
            content = .object(members)
        } else {
            content = .object([(key, slot)])
        }
        return slot
    }

    /// A new slot at the end of the array this slot now holds.
    func element() -> Slot {
        let slot = Slot()
        if case .array(var elements) = content {
            elements.append(slot)
            content = .array(elements)
        } else {
            content = .array([slot])
        }
        return slot
    }

    /// An integer as a number; beyond 2⁵³, where a Double would merge neighbours, as its digits.
    private static func value(_ integer: some BinaryInteger) -> Content {
        .value(Double(exactly: integer).map(JSONValue.number) ?? .string("\(integer)"))
    }

    func write(_ value: some Encodable, codingPath: [any CodingKey]) throws {
        switch value {
        case let json as JSONValue: content = .value(json)
        case let object as JSONObject: content = .value(.object(object))
        case let number as Double: content = .value(.number(number))
        case let text as String: content = .value(.string(text))
        case let flag as Bool: content = .value(.bool(flag))
        // The integer types Codable encodes (Int128 and UInt128 it refuses), one by one: a cast to
        // `any BinaryInteger` makes the runtime search every loaded library's conformances for each type it
        // meets (about a millisecond of the first job a process encodes).
        case let integer as Int: content = Self.value(integer)
        case let integer as Int64: content = Self.value(integer)
        case let integer as Int32: content = Self.value(integer)
        case let integer as Int16: content = Self.value(integer)
        case let integer as Int8: content = Self.value(integer)
        case let integer as UInt: content = Self.value(integer)
        case let integer as UInt64: content = Self.value(integer)
        case let integer as UInt32: content = Self.value(integer)
        case let integer as UInt16: content = Self.value(integer)
        case let integer as UInt8: content = Self.value(integer)
        case let number as Float: content = .value(.number(Double(number)))
        default: try value.encode(to: ValueEncoder(slot: self, codingPath: codingPath))
        }
    }
}

private struct ValueEncoder: Encoder {
    let slot: Slot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = slot.content {} else { slot.content = .object([]) }
        return KeyedEncodingContainer(KeyedContainer<Key>(slot: slot, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = slot.content {} else { slot.content = .array([]) }
        return UnkeyedContainer(slot: slot, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(slot: slot, codingPath: codingPath)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: Slot
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { slot.member(key.stringValue).content = .value(.null) }

    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        try slot.member(key.stringValue).write(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        ValueEncoder(slot: slot.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        ValueEncoder(slot: slot.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        ValueEncoder(slot: slot.member("super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ValueEncoder(slot: slot.member(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let slot: Slot
    let codingPath: [any CodingKey]
    var count: Int {
        if case .array(let elements) = slot.content { return elements.count }
        return 0
    }

    mutating func encodeNil() throws { slot.element().content = .value(.null) }

    mutating func encode(_ value: some Encodable) throws {
        try slot.element().write(value, codingPath: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        ValueEncoder(slot: slot.element(), codingPath: codingPath).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        ValueEncoder(slot: slot.element(), codingPath: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { ValueEncoder(slot: slot.element(), codingPath: codingPath) }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let slot: Slot
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { slot.content = .value(.null) }

    mutating func encode(_ value: some Encodable) throws { try slot.write(value, codingPath: codingPath) }
}

extension JSONValue: Encodable {
    /// The value as the JSON it is.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .number(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let object):
            try object.encode(to: encoder)
        }
    }
}

extension JSONObject: Encodable {
    /// The object's members in order.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberKey.self)
        for (key, value) in self { try container.encode(value, forKey: MemberKey(key)) }
    }

    private struct MemberKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
