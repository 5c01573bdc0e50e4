import FileInput
import FileOutput
import Foundation
import RenderFarmPluginABI

/// The names of everything in an output folder (<doc:OutputFolder>), in one place: every type that
/// reads or writes the folder asks here, so a name is spelled once.
///
/// ```
/// frame_00000.png …                   the frames (named by the job's output settings)
/// manifest.json                       the downstream contract
/// renderfarm.job.json                 what the folder is being rendered from
/// renderfarm.journal.jsonl            finished frames (…shard-K-of-N.jsonl per shard)
/// renderfarm.fingerprints.txt         per-frame fingerprints from frame keys (…shard-K-of-N.txt per shard)
/// renderfarm.lock                     the folder's lock (renderfarm.shard-K-of-N.lock per shard)
/// renderfarm.cache/<plugin id>/       what plugins keep between runs and shards
/// variants.json                       a batch folder's index of its variants
/// slurm/                              `submit`'s scripts and logs
/// ```
package enum FolderLayout {
    /// `manifest.json`.
    package static let manifest = "manifest.json"
    /// `renderfarm.job.json`: a folder that has it is a render folder.
    package static let jobRecord = "renderfarm.job.json"
    /// `renderfarm.lock`, held by every run that writes the folder.
    package static let lock = "renderfarm.lock"
    /// `renderfarm.cache`, the plugins' caches: the ABI names it (`RF_CACHE_FOLDER`).
    package static let cache = RF_CACHE_FOLDER
    /// `variants.json`, in the folder that holds a batch's variant folders.
    package static let variantIndex = "variants.json"
    /// `slurm`, where `submit` writes its scripts and Slurm its logs.
    package static let slurm = "slurm"

    /// What every RenderFarm file of a folder starts with.
    package static let prefix = "renderfarm."
    private static let journalStem = "renderfarm.journal"
    /// All journals, as messages name them.
    package static let journals = journalStem + "*.jsonl"
    private static let fingerprintStem = "renderfarm.fingerprints"
    private static let shardLockStem = "renderfarm.shard-"

    /// The journal `shard` appends to: shards on several hosts never share one.
    package static func journal(of shard: Shard) -> String { journalStem + suffix(of: shard) + ".jsonl" }

    /// The fingerprint table `shard` writes.
    package static func fingerprints(of shard: Shard) -> String { fingerprintStem + suffix(of: shard) + ".txt" }

    /// The lock file `shard` holds besides `lock`; `lock` itself for a whole run.
    package static func lock(of shard: Shard) -> String {
        switch shard {
        case .whole: lock
        case .part(let index, let count, _): "\(shardLockStem)\(index)-of-\(count).lock"
        }
    }

    /// Whether `name` is the lock file of a shard.
    static func isShardLock(_ name: String) -> Bool { name.hasPrefix(shardLockStem) && name.hasSuffix(".lock") }

    /// Whether `name` is a journal (of the whole run or of a shard).
    package static func isJournal(_ name: String) -> Bool { name.hasPrefix(journalStem) && name.hasSuffix(".jsonl") }

    /// Whether `name` is a fingerprint table.
    package static func isFingerprintTable(_ name: String) -> Bool {
        name.hasPrefix(fingerprintStem) && name.hasSuffix(".txt")
    }

    /// Names RenderFarm itself puts into an output folder before or beside a render's job record.
    package static func isRenderFarms(_ name: String) -> Bool {
        name.hasPrefix(prefix) || name.hasPrefix(StagedWrite.temporaryMarker) || name == slurm || name == variantIndex
    }

    private static func suffix(of shard: Shard) -> String {
        switch shard {
        case .whole: ""
        case .part(let index, let count, _): ".shard-\(index)-of-\(count)"
        }
    }
}
