/// Which part of a job's frames one run renders (`--shard K/N`, DESIGN.md §1).
public enum Shard: Sendable, Equatable, CustomStringConvertible {
    case whole
    /// Part `index` (0-based) of `count`: contiguous chunks or every `count`-th frame.
    case part(index: Int, count: Int, interleaved: Bool)

    /// The frames of `frames` that belong to this shard.
    public func part(of frames: FrameSet) -> FrameSet {
        switch self {
        case .whole:
            return frames
        case .part(let index, let count, true):
            return frames.strided(offset: index, step: count)
        case .part(let index, let count, false):
            // Chunk sizes differ by at most one; the first `remainder` chunks get the extra frame.
            let base = frames.count / count
            let remainder = frames.count % count
            let start = index * base + min(index, remainder)
            let length = base + (index < remainder ? 1 : 0)
            return frames.slice(start..<(start + length))
        }
    }

    /// The journal file this shard appends to, so shards on several hosts never share one.
    public var journalName: String {
        switch self {
        case .whole: "renderfarm.journal.jsonl"
        case .part(let index, let count, _): "renderfarm.journal.shard-\(index)-of-\(count).jsonl"
        }
    }

    public var description: String {
        switch self {
        case .whole: "whole"
        case .part(let index, let count, let interleaved): "\(index)/\(count)" + (interleaved ? " interleaved" : "")
        }
    }
}
