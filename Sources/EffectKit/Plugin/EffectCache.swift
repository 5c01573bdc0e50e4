import FileInput
import Foundation

/// A folder the host keeps for a job between runs and shares between its shards (ABI
/// `prepare_with_cache`): an effect whose preparation costs more the later its frames lie stores
/// what it computed there, such as a simulation's checkpoints, and starts from it next time.
///
/// The rules that keep a cache from ever changing a frame:
/// - name each file by a hash of everything its content depends on (``FrameKey/Hasher``), so a file
///   that is found is right, whatever was edited since;
/// - ``write(_:_:)`` is atomic, so a reader never sees half a file, and two processes writing one
///   name write the same bytes;
/// - ``read(_:limit:)`` returns whatever is there: check it (a length, a version, a checksum) and
///   compute again when it does not parse;
/// - the folder may not exist yet, and may vanish between runs (the user may delete it).
public struct EffectCache: Sendable, Equatable {
    /// Absolute path of the folder, which may not exist until the first ``write(_:_:)``.
    public let folder: String

    public init(folder: String) {
        self.folder = folder
    }

    /// Whether `name` is a plain file name the cache accepts: letters, digits, `-`, `_` and `.`,
    /// not starting with a dot (temporary files do), at most 200 bytes.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 200 && !name.hasPrefix(".")
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x5F || byte == 0x2E
            }
    }

    /// The bytes of file `name`, or nil when it is absent, unreadable, not a regular file (a symbolic
    /// link included), or larger than `limit` bytes.
    public func read(_ name: String, limit: Int = 256 << 20) -> [UInt8]? {
        guard Self.isValidName(name) else { return nil }
        return try? InputFile.read(path(name), limit: limit, followLastLink: false)
    }

    /// Writes `bytes` as file `name`, atomically: into a temporary file of the folder
    /// (`.rf-tmp-…`, which the host removes once it is an hour old, should the process die while
    /// writing), renamed over `name` once complete. Makes the folder (and its parents) first when it
    /// is missing: the host makes none, so that a job whose layers keep nothing has no cache folder.
    /// Returns whether it landed; a cache that cannot be written only costs time, so callers may
    /// ignore the result.
    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) -> Bool {
        guard Self.isValidName(name) else { return false }
        return bytes.withUnsafeBytes { bytes in
            var failure = StagedWrite.write(bytes, to: path(name))
            if failure?.code == ENOENT,
                (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil
            {
                failure = StagedWrite.write(bytes, to: path(name))
            }
            return failure == nil
        }
    }

    private func path(_ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }
}
