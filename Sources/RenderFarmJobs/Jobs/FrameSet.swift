/// A set of frame numbers in the OpenJD range grammar: `1-100`, `1-100:2`, `1,3,5-9`, `100-1:-1`.
package struct FrameSet: Sendable, Equatable, CustomStringConvertible {
    /// Frame numbers, ascending, without duplicates.
    package let frames: [Int]

    package init(_ frames: some Sequence<Int>) {
        self.frames = Array(Set(frames)).sorted()
    }

    /// Every frame in `0..<count`.
    package static func all(_ count: Int) -> FrameSet { FrameSet(sortedUnique: Array(0..<max(0, count))) }

    private init(sortedUnique frames: [Int]) {
        self.frames = frames
    }

    package var count: Int { frames.count }

    /// Whether `index` is in the set (a binary search).
    package func contains(_ index: Int) -> Bool {
        var (low, high) = (0, frames.count)
        while low < high {
            let middle = (low + high) / 2
            if frames[middle] < index { low = middle + 1 } else { high = middle }
        }
        return low < frames.count && frames[low] == index
    }
    package var isEmpty: Bool { frames.isEmpty }

    /// Parses `text`; `limit` bounds how many frames it may name (a guard against `0-999999999`).
    package init(parsing text: String, limit: Int = 1_000_000) throws(FrameSetError) {
        let trimmed = text.filter { $0 != " " }
        guard !trimmed.isEmpty else { throw FrameSetError("empty frame set") }
        var frames: Set<Int> = []
        for item in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            guard !item.isEmpty else { throw FrameSetError("empty item in \"\(text)\"") }
            let (start, end, step) = try Self.parseItem(String(item))
            let span = (end - start) / step
            guard span >= 0 else {
                throw FrameSetError("\"\(item)\" runs backwards; write \(end)-\(start) or use a negative step")
            }
            guard frames.count + span + 1 <= limit else { throw FrameSetError("more than \(limit) frames") }
            for frame in stride(from: start, through: end, by: step) { frames.insert(frame) }
        }
        self.init(sortedUnique: frames.sorted())
    }

    private static func parseItem(_ item: String) throws(FrameSetError) -> (Int, Int, Int) {
        let parts = item.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { throw FrameSetError("\"\(item)\" has more than one ':'") }
        var step = 1
        if parts.count == 2 {
            guard let value = Int(parts[1]), value != 0 else {
                throw FrameSetError("\"\(item)\": the step after ':' must be a non-zero integer")
            }
            step = value
        }
        let range = String(parts[0])
        // A '-' after the first character separates the bounds (the first may be a minus sign).
        if let dash = range.dropFirst().firstIndex(of: "-") {
            guard let start = Int(range[..<dash]), let end = Int(range[range.index(after: dash)...]) else {
                throw FrameSetError("\"\(item)\" is not a range like 1-100 or 1-100:2")
            }
            return try checked(item, start, end, step)
        }
        guard parts.count == 1, let single = Int(range) else {
            throw FrameSetError("\"\(item)\" is not a frame number or a range like 1-100:2")
        }
        return try checked(item, single, single, 1)
    }

    /// Frame numbers beyond a billion are refused before any arithmetic on them can overflow.
    private static func checked(_ item: String, _ start: Int, _ end: Int, _ step: Int) throws(FrameSetError)
        -> (Int, Int, Int)
    {
        let bound: UInt = 1_000_000_000
        guard start.magnitude <= bound, end.magnitude <= bound, step.magnitude <= bound else {
            throw FrameSetError("\"\(item)\": frame numbers must be within ±\(bound)")
        }
        return (start, end, step)
    }

    /// The shortest text in the grammar that names exactly these frames, e.g. `"3,7-9"`.
    package var description: String { Self.compress(frames) }

    /// Compresses sorted frame numbers into runs: `[3, 7, 8, 9]` → `"3,7-9"`.
    package static func compress(_ sorted: [Int]) -> String {
        var parts: [String] = []
        var index = 0
        while index < sorted.count {
            var end = index
            while end + 1 < sorted.count, sorted[end + 1] == sorted[end] + 1 { end += 1 }
            parts.append(end == index ? "\(sorted[index])" : "\(sorted[index])-\(sorted[end])")
            index = end + 1
        }
        return parts.joined(separator: ",")
    }

    /// Frames of `self` that are also in `other`.
    package func intersection(_ other: FrameSet) -> FrameSet {
        let keep = Set(other.frames)
        return FrameSet(sortedUnique: frames.filter(keep.contains))
    }

    /// The frames of `self` in positions `range` (for shards).
    package func slice(_ range: Range<Int>) -> FrameSet { FrameSet(sortedUnique: Array(frames[range])) }

    /// Every `step`-th frame of `self` starting at position `offset` (interleaved shards).
    package func strided(offset: Int, step: Int) -> FrameSet {
        FrameSet(sortedUnique: Array(stride(from: offset, to: frames.count, by: step).map { frames[$0] }))
    }
}

extension FrameSet: Encodable {
    /// The set in the range grammar (`description`), which names every frame in a few characters.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// Why a frame-set text could not be parsed.
package struct FrameSetError: Error, Equatable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
