import RenderFarmJobs

/// Which part of a job's frames one run renders (`--shard K/N`, <doc:RunningOnACluster>).
package enum Shard: Sendable, Equatable, CustomStringConvertible {
    case whole
    /// Part `index` (0-based) of `count`: contiguous chunks or every `count`-th frame.
    case part(index: Int, count: Int, interleaved: Bool)

    /// The frames of `frames` that belong to this shard.
    package func part(of frames: FrameSet) -> FrameSet {
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

    /// What a render of this shard is called where it holds the folder's lock (`FolderLock.Holder`).
    package var renderTask: String { self == .whole ? "render" : "render --shard \(self)" }

    package var description: String {
        switch self {
        case .whole: "whole"
        case .part(let index, let count, let interleaved): "\(index)/\(count)" + (interleaved ? " interleaved" : "")
        }
    }
}
