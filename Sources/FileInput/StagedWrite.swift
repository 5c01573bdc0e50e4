import Glibc

/// The one way a whole file is written: to a temporary name in the folder of its final name, then renamed
/// over it, so that nothing half-written ever has a final name. Output files (`AtomicFile`, `FolderDescriptor`)
/// and an effect's cache files go through it; writers that need a path of their own (cairo, ffmpeg) stage
/// through `StagedFile`, which names its temporary file the same way.
///
/// A killed process leaves at most a temporary file named `.rf-tmp-<pid>-<random>-<name>`, which the host
/// clears once it is an hour old.
public enum StagedWrite {
    /// The temporary names start with this, so stray ones are recognisable.
    public static let temporaryMarker = ".rf-tmp-"

    /// A temporary name for `name`: `.rf-tmp-<pid>-<random>-<name>`.
    public static func temporaryName(for name: String) -> String {
        "\(temporaryMarker)\(getpid())-\(UInt64.random(in: 0...UInt64.max))-\(name)"
    }

    /// A temporary path in the folder of `path` (relative paths stay relative).
    public static func temporaryPath(for path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return temporaryName(for: path) }
        return String(path[...slash]) + temporaryName(for: String(path[path.index(after: slash)...]))
    }

    /// Writes `bytes` to a new temporary file beside `path` (resolved against `folder`, a directory
    /// descriptor or `AT_FDCWD`) and returns that file's path, for ``commit(_:as:in:)``. The file is made with
    /// `O_EXCL | O_NOFOLLOW`: it is this writer's own, never something found there, with permissions `mode` (less
    /// the umask) from the start. On failure nothing stays.
    public static func stage(
        _ bytes: UnsafeRawBufferPointer, beside path: String, in folder: Int32 = AT_FDCWD, mode: mode_t = 0o644
    ) -> Result<String, DescriptorIO.Errno> {
        let temporary = temporaryPath(for: path)
        let descriptor = openat(folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else { return .failure(DescriptorIO.Errno(code: errno)) }
        let failure = DescriptorIO.writeAll(bytes, to: descriptor)
        let closed = close(descriptor) == 0 ? nil : errno
        if let code = failure ?? closed {
            unlinkat(folder, temporary, 0)
            return .failure(DescriptorIO.Errno(code: code))
        }
        return .success(temporary)
    }

    /// Renames the staged file `temporary` over `path`; the temporary file is removed when that fails.
    public static func commit(_ temporary: String, as path: String, in folder: Int32 = AT_FDCWD)
        -> DescriptorIO.Errno?
    {
        guard renameat(folder, temporary, folder, path) == 0 else {
            let failure = DescriptorIO.Errno(code: errno)
            unlinkat(folder, temporary, 0)
            return failure
        }
        return nil
    }

    /// Stages `bytes` beside `path` and renames them over it: nil when the file landed, else the `errno` of the
    /// step that failed (with nothing left behind).
    public static func write(_ bytes: UnsafeRawBufferPointer, to path: String, in folder: Int32 = AT_FDCWD)
        -> DescriptorIO.Errno?
    {
        switch stage(bytes, beside: path, in: folder) {
        case .success(let temporary): return commit(temporary, as: path, in: folder)
        case .failure(let failure): return failure
        }
    }
}
