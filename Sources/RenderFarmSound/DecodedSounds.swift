import Locking
import RenderFarmJobs
import Synchronization

/// Sound files decoded in this process, by content, once a long-lived process asks for it (`keep()`): the studio
/// mixes a job's sound again after every edit, and loading the same bytes for the same length with the same ffmpeg
/// then gives the samples without starting ffmpeg. A command mixes once, so it keeps nothing: its samples would only
/// stay in memory through its render. Keyed by the bytes' SHA-256 (read and hashed anyway), so an edited file is
/// decoded again. Failures are not kept. At most `budget` samples are kept; the least recently used go first.
package enum DecodedSounds {
    struct Key: Hashable {
        var sha256: String
        var seconds: Double
        var ffmpeg: String
    }

    /// 32 Mi samples: 128 MB, about 5 minutes of stereo at 48 kHz.
    static let budget = 32 << 20

    private struct Table {
        var entries: [Key: [Float]] = [:]
        /// Least recently used first.
        var order: [Key] = []
        var size = 0
    }

    private static let keeping = Atomic<Bool>(false)
    private static let table = Locked(Table())

    /// From now on, decoded sound files are kept in this process.
    package static func keep() { keeping.store(true, ordering: .relaxed) }

    /// The samples kept for `key`, else `decode`'s (kept when this process keeps them and they fit).
    static func samples(_ key: Key, decode: () -> Result<[Float], DataProblem>) -> Result<[Float], DataProblem> {
        guard keeping.load(ordering: .relaxed) else { return decode() }
        let kept = table.withLock { table -> [Float]? in
            guard let samples = table.entries[key] else { return nil }
            table.order.removeAll { $0 == key }
            table.order.append(key)
            return samples
        }
        if let kept { return .success(kept) }
        let decoded = decode()
        guard case .success(let samples) = decoded, samples.count <= budget else { return decoded }
        table.withLock { table in
            guard table.entries[key] == nil else { return }
            while table.size + samples.count > budget, !table.order.isEmpty {
                let oldest = table.order.removeFirst()
                table.size -= table.entries.removeValue(forKey: oldest)?.count ?? 0
            }
            table.entries[key] = samples
            table.order.append(key)
            table.size += samples.count
        }
        return decoded
    }
}
