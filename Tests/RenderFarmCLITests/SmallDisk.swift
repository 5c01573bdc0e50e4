import Foundation
import Testing

/// A small tmpfs mounted for one test: a real full disk. Mounting needs root (and a container that
/// allows it); tests that need one are enabled by `SmallDisk.available`, so that elsewhere they are
/// skipped with `SmallDisk.unavailable` printed instead of failing. The tests with an injected
/// ENOSPC (`FullDiskTests`) cover the same paths everywhere.
final class SmallDisk {
    /// Whether a tmpfs can be mounted here; tried once.
    static let available: Bool = {
        guard getuid() == 0, let folder = try? TemporaryFolder() else { return false }
        return (try? SmallDisk(in: folder)) != nil
    }()

    static let unavailable: Comment =
        "cannot mount a small tmpfs here (needs root): skipped; the injected-ENOSPC tests cover the same paths"

    /// The mount point.
    let url: URL
    var path: String { url.path }
    /// Kept so that the folder is removed only after the disk is unmounted.
    private let folder: TemporaryFolder

    /// Mounts a tmpfs of `size` bytes (a multiple of 4096) at a new folder inside `folder`.
    init(in folder: TemporaryFolder, size: Int = 12 * 1024) throws {
        self.folder = folder
        url = folder.url.appendingPathComponent("small-disk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let mount = try Tools.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", url.path], timeout: 10)
        guard mount.status == 0 else { throw ToolError(message: "mount -t tmpfs: \(mount.stderr)") }
    }

    deinit { _ = try? Tools.run("/bin/umount", ["-l", url.path], timeout: 10) }

    /// Fills the disk with a file named `filler` until `free` bytes are left (whole 4 KiB pages).
    func fill(leaving free: Int) throws {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { throw ToolError(message: "statvfs \(path): \(errno)") }
        let available = Int(stats.f_bavail) * Int(stats.f_frsize)
        try #require(available >= free, "\(available) bytes free on the small disk, wanted \(free)")
        try Data(count: available - free).write(to: url.appendingPathComponent("filler"))
    }

    /// The names in the disk's top folder, sorted.
    func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: path).sorted() }
}
