import EffectKit

/// When each heart of a layer is added, as an interval index: hearts are numbered in spawn order, so
/// the hearts alive at a time are one range of numbers, found by binary search. `rate` spawns are
/// arithmetic and store nothing; `times` and `events` keep one sorted list.
enum HeartSchedule: Sendable {
    /// Heart i is added at i / rate, for `count` hearts.
    case rate(Double, count: Int)
    /// The hearts of `times` or `events`, sorted by time.
    case listed([Spawn])

    /// When a heart is added, and its own colour and size when an event gives them.
    struct Spawn: Sendable {
        var time: Double
        var size: Double?
        var color: Color?
    }

    var count: Int {
        switch self {
        case .rate(_, let count): count
        case .listed(let spawns): spawns.count
        }
    }

    /// Heart `index`'s spawn (an index below `count`).
    func spawn(_ index: Int) -> Spawn {
        switch self {
        case .rate(let rate, _): Spawn(time: Double(index) / rate)
        case .listed(let spawns): spawns[index]
        }
    }

    /// `rate` hearts per second from 0 until `end` (exclusive).
    static func rate(_ rate: Double, until end: Double) -> HeartSchedule {
        guard rate > 0, end > 0 else { return .rate(1, count: 0) }
        var count = Int((end * rate).rounded(.up))
        while count > 0, Double(count - 1) / rate >= end { count -= 1 }
        return .rate(rate, count: count)
    }

    /// The hearts added in `(start, end]` — after `start`, at or before `end` — by binary search.
    func added(after start: Double, through end: Double) -> Range<Int> {
        let first = SortedIndex.first(in: count) { spawn($0).time > start }
        let last = SortedIndex.first(in: count) { spawn($0).time > end }
        return first < last ? first..<last : first..<first
    }
}
