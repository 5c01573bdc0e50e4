/// One item in the world as a checkpoint keeps it: what `ChipmunkWorld(scene:restoring:ended:)` needs to put
/// it back (see <doc:StreamLengthEffects>, "Physics checkpoints").
struct BodyState: Equatable {
    var item: Int
    var position: Point
    var velocity: Point
    var angle: Double
    var angularVelocity: Double
    /// The smallest index of the sleeping items it touches, directly or through others (they wake together);
    /// nil while it is awake.
    var sleepGroup: Int?
    /// Whether it touched something in the last step taken (its next move is then not free flight).
    var touched: Bool
    /// Where in the last step taken the barrier sweep stopped it, if it did.
    var impactFraction: Double?
}

/// The whole state of a simulation between two samples, from which it continues exactly: at every epoch
/// boundary a run rebuilds its world from this state, and a run resumed from a saved one does the same.
struct PhysicsCheckpoint: Equatable {
    /// The sample that follows (a multiple of the epoch length).
    var sample: Int
    /// Steps simulated since the layer's start (the world's clock).
    var step: Int
    /// How many items have been scheduled in, how many approaches have started, how many expiries passed.
    var nextArrival: Int
    var nextApproach: Int
    var nextExpiry: Int
    /// Items on their way (approach started) and not in the world yet, ascending.
    var onTheWay: [Int]
    /// Items taken out for good (expired or left the canvas), ascending.
    var ended: [Int]
    /// The items in the world, ascending.
    var bodies: [BodyState]

    /// Whether the checkpoint can belong to `scene` at `sample`: counts within the scene's, indices
    /// ascending and in range, finite numbers, sleeping groups that exist. A file that passed its key and
    /// checksum checks still goes through this, so that no byte pattern can make Chipmunk assert.
    func fits(_ scene: PhysicsScene, sample expected: Int) -> Bool {
        let count = scene.items.count
        let approaches = scene.items.filter { $0.approach != nil }.count
        let expiring = scene.items.filter { $0.expiry != nil }.count
        guard sample == expected, step >= 0, (0...count).contains(nextArrival),
            (0...approaches).contains(nextApproach), (0...expiring).contains(nextExpiry),
            bodies.count <= PhysicsLimits.maxAliveItems,
            Self.ascending(onTheWay, below: count), Self.ascending(ended, below: count),
            Self.ascending(bodies.map(\.item), below: count),
            onTheWay.allSatisfy({ scene.items[$0].approach != nil })
        else { return false }
        let live = Set(bodies.map(\.item))
        let groups = Set(bodies.filter { $0.sleepGroup == $0.item }.map(\.item))
        return ended.allSatisfy { !live.contains($0) }
            && bodies.allSatisfy { body in
                [
                    body.position.x, body.position.y, body.velocity.x, body.velocity.y, body.angle,
                    body.angularVelocity,
                    body.impactFraction ?? 0,
                ].allSatisfy(\.isFinite)
                    && (body.sleepGroup.map(groups.contains) ?? true)
            }
    }

    private static func ascending(_ list: [Int], below bound: Int) -> Bool {
        list.indices.allSatisfy { index in
            (0..<bound).contains(list[index]) && (index == 0 || list[index - 1] < list[index])
        }
    }
}

extension PhysicsCheckpoint {
    /// Bumped whenever the bytes, or what a rebuild does with them, change: part of every file's key.
    static let formatVersion: UInt32 = 1
    private static let magic = Array("RFPHYSCK".utf8)
    private static let checksumSize = 32

    /// The file: magic, format version, the key it was saved under, the payload's length, the payload,
    /// and a checksum of the payload. Doubles are stored as their bit patterns, little-endian.
    func bytes(key: FrameKey) -> [UInt8] {
        var payload = ByteWriter()
        for value in [sample, step, nextArrival, nextApproach, nextExpiry] { payload.integer(value) }
        payload.list(onTheWay)
        payload.bitmap(ended)
        payload.word32(bodies.count)
        for body in bodies {
            payload.word32(body.item)
            payload.byte(
                (body.sleepGroup == nil ? 0 : 1) | (body.touched ? 2 : 0) | (body.impactFraction == nil ? 0 : 4))
            payload.word32(body.sleepGroup ?? 0)
            for value in [body.position.x, body.position.y, body.velocity.x, body.velocity.y, body.angle] {
                payload.double(value)
            }
            payload.double(body.angularVelocity)
            payload.double(body.impactFraction ?? 0)
        }
        var file = ByteWriter()
        file.bytes += Self.magic
        file.word32(Int(Self.formatVersion))
        file.bytes += key.bytes
        file.integer(payload.bytes.count)
        file.bytes += payload.bytes
        file.bytes += Self.checksum(payload.bytes).bytes
        return file.bytes
    }

    /// Reads a file written by `bytes(key:)` under `key`; nil unless every check passes (magic, version,
    /// key, length, checksum, and a payload that parses to its last byte).
    init?(bytes: [UInt8], key: FrameKey) {
        var file = ByteReader(bytes)
        guard file.take(Self.magic.count) == Self.magic, file.word32() == Int(Self.formatVersion),
            file.take(key.bytes.count) == key.bytes, let length = file.integer(),
            length == bytes.count - file.offset - Self.checksumSize, let payload = file.take(length),
            file.take(Self.checksumSize) == Self.checksum(payload).bytes
        else { return nil }
        var reader = ByteReader(payload)
        guard let checkpoint = Self.parse(&reader), reader.atEnd else { return nil }
        self = checkpoint
    }

    private static func parse(_ reader: inout ByteReader) -> PhysicsCheckpoint? {
        guard let sample = reader.integer(), let step = reader.integer(), let nextArrival = reader.integer(),
            let nextApproach = reader.integer(), let nextExpiry = reader.integer(), let onTheWay = reader.list(),
            let ended = reader.bitmap(), let count = reader.word32(), count <= PhysicsLimits.maxAliveItems
        else { return nil }
        var bodies: [BodyState] = []
        for _ in 0..<count {
            guard let item = reader.word32(), let flags = reader.byte(), let group = reader.word32(),
                let values = reader.doubles(7)
            else { return nil }
            bodies.append(
                BodyState(
                    item: item, position: Point(values[0], values[1]), velocity: Point(values[2], values[3]),
                    angle: values[4], angularVelocity: values[5], sleepGroup: flags & 1 != 0 ? group : nil,
                    touched: flags & 2 != 0, impactFraction: flags & 4 != 0 ? values[6] : nil))
        }
        return PhysicsCheckpoint(
            sample: sample, step: step, nextArrival: nextArrival, nextApproach: nextApproach, nextExpiry: nextExpiry,
            onTheWay: onTheWay, ended: ended, bodies: bodies)
    }

    private static func checksum(_ payload: [UInt8]) -> FrameKey {
        var hasher = FrameKey.Hasher()
        hasher.combine(payload.count)
        var reader = ByteReader(payload + Array(repeating: 0, count: (8 - payload.count % 8) % 8))
        while let word = reader.word64() { hasher.combine(word) }
        return hasher.finalize()
    }
}

/// Little-endian fields appended to a byte array.
private struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ value: Int) { bytes.append(UInt8(truncatingIfNeeded: value)) }

    mutating func word32(_ value: Int) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    mutating func word64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    mutating func integer(_ value: Int) { word64(UInt64(bitPattern: Int64(value))) }

    mutating func double(_ value: Double) { word64(value.bitPattern) }

    /// A count and the values, as 32-bit words.
    mutating func list(_ values: [Int]) {
        word32(values.count)
        for value in values { word32(value) }
    }

    /// Ascending indices as a bitmap: its length in bytes, then bit i of byte j set for index 8·j + i.
    mutating func bitmap(_ indices: [Int]) {
        var map = [UInt8](repeating: 0, count: ((indices.last ?? -1) + 8) / 8)
        for index in indices { map[index / 8] |= 1 << (index % 8) }
        word32(map.count)
        bytes += map
    }
}

/// Reads what `ByteWriter` wrote; every read returns nil past the end.
private struct ByteReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { offset == bytes.count }

    mutating func take(_ count: Int) -> [UInt8]? {
        guard count >= 0, count <= bytes.count - offset else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func byte() -> Int? { take(1).map { Int($0[0]) } }

    mutating func word32() -> Int? {
        take(4).map { $0.reversed().reduce(0) { $0 << 8 | Int($1) } }
    }

    mutating func word64() -> UInt64? {
        take(8).map { $0.reversed().reduce(0 as UInt64) { $0 << 8 | UInt64($1) } }
    }

    mutating func integer() -> Int? { word64().map { Int(Int64(bitPattern: $0)) } }

    mutating func doubles(_ count: Int) -> [Double]? {
        var values: [Double] = []
        for _ in 0..<count {
            guard let word = word64() else { return nil }
            values.append(Double(bitPattern: word))
        }
        return values
    }

    mutating func list() -> [Int]? {
        guard let count = word32(), count <= bytes.count - offset else { return nil }
        var values: [Int] = []
        for _ in 0..<count {
            guard let value = word32() else { return nil }
            values.append(value)
        }
        return values
    }

    mutating func bitmap() -> [Int]? {
        guard let count = word32(), let map = take(count) else { return nil }
        return map.indices.flatMap { byte in (0..<8).filter { map[byte] & (1 << $0) != 0 }.map { byte * 8 + $0 } }
    }
}
