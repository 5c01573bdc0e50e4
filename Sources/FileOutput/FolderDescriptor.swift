import FileInput
import Foundation

/// An output folder opened as a folder: every file RenderFarm writes, appends to, replaces or removes
/// in it is named relative to this descriptor, and no symbolic link there is followed.
///
/// Names are single components (a frame's name, a name `FolderLayout` gives), opened with `openat`
/// and `O_NOFOLLOW`, renamed with `renameat`, removed with `unlinkat` and made with `mkdirat`; a
/// subfolder is opened the same way before anything is named in it. With no `/` in a name, the last
/// component is the only one, so `O_NOFOLLOW` leaves no link anywhere on the way: `openat2`'s
/// `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` would add nothing, and every kernel has `O_NOFOLLOW`.
///
/// Where RenderFarm writes a file, anything else already there — a symbolic link, a named pipe, a
/// socket, a device or a folder — is refused (`refusal`), never written through, replaced or
/// removed; where it uses a folder (`renderfarm.cache`), anything but a folder is. Only the folder
/// itself is opened by its path, as the user named it (it may be a link to another disk).
///
/// Owns its descriptor (closed on deinit); `Sendable`, as descriptors are: every call is a system call
/// on it, and the kernel serialises them.
package final class FolderDescriptor: Sendable {
    /// The folder as it was opened, for messages.
    package let path: String
    /// The open folder (`O_DIRECTORY`), owned by this value.
    package let descriptor: Int32

    /// Opens the folder at `path`.
    package init(opening path: String) throws(OutputError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw AtomicFile.error(errno, path) }
        self.path = path
        descriptor = fd
    }

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The path of `name` in the folder, for messages.
    package func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// What `name` is now, without following a link; nil when nothing is there.
    package func kind(of name: String) -> FileKind? {
        var info = stat()
        guard Self.isName(name), fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return FileKind(mode: info.st_mode)
    }

    /// Throws `refusal` when something that is not a regular file is at `name`: what RenderFarm writes
    /// there would replace it. Nothing there, or a file, passes.
    package func checkWritable(_ name: String) throws(OutputError) {
        try checkName(name)
        if let kind = kind(of: name), kind != .regular { throw Self.refusal(file(name), kind) }
    }

    /// Opens `name` for appending (creating it), the one way a journal is opened: never through a link,
    /// never anything but a regular file (a named pipe fails at once, `O_NONBLOCK`); emptied first when
    /// `truncate`, once it is known to be a file. Readable too, so the appender can look at its last byte.
    package func openForAppending(_ name: String, truncate: Bool) throws(OutputError) -> Int32 {
        try checkWritable(name)
        let fd = try openRegular(name, flags: O_RDWR | O_CREAT | O_APPEND)
        guard !truncate || ftruncate(fd, 0) == 0 else {
            let code = errno
            close(fd)
            throw AtomicFile.error(code, file(name))
        }
        return fd
    }

    /// Opens `name` for reading and writing (creating it), never through a link: a lock file.
    package func openForLocking(_ name: String) throws(OutputError) -> Int32 {
        try checkName(name)
        return try openRegular(name, flags: O_RDWR | O_CREAT)
    }

    /// Opens `name` with `flags` (creating it as 0644 where they say so) never through a link and never
    /// blocking, and refuses it unless it is a regular file.
    private func openRegular(_ name: String, flags: Int32) throws(OutputError) -> Int32 {
        let fd = openat(descriptor, name, flags | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY, 0o644)
        guard fd >= 0 else { throw openError(errno, name) }
        var info = stat()
        guard fstat(fd, &info) == 0, FileKind(mode: info.st_mode) == .regular else {
            close(fd)
            throw Self.refusal(file(name), FileKind(mode: info.st_mode))
        }
        return fd
    }

    /// Opens the regular file `name` for reading, no link followed.
    package func openForReading(_ name: String) throws(InputFileError) -> InputFile {
        try InputFile(name, in: descriptor, path: file(name))
    }

    /// Removes the file `name`, if any; anything but a file there is refused.
    package func remove(_ name: String) throws(OutputError) {
        try checkWritable(name)
        guard unlinkat(descriptor, name, 0) == 0 || errno == ENOENT else { throw AtomicFile.error(errno, file(name)) }
    }

    /// The subfolder `name`, opened without following a link: nil when nothing is there, refused when
    /// anything but a folder is.
    package func subfolder(_ name: String) throws(OutputError) -> FolderDescriptor? {
        try checkName(name)
        let fd = openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            if let kind = kind(of: name), kind != .directory {
                throw Self.refusal(file(name), kind, expected: .directory)
            }
            throw AtomicFile.error(code, file(name))
        }
        return FolderDescriptor(path: file(name), descriptor: fd)
    }

    /// The subfolder `name`, made (`mkdirat`) when nothing is there; refused when anything but a folder is.
    package func subfolder(making name: String) throws(OutputError) -> FolderDescriptor {
        try checkName(name)
        guard mkdirat(descriptor, name, 0o755) == 0 || errno == EEXIST else {
            throw AtomicFile.error(errno, file(name))
        }
        guard let folder = try subfolder(name) else { throw AtomicFile.error(ENOENT, file(name)) }
        return folder
    }

    /// The names in the folder (without `.` and `..`); empty when it cannot be listed.
    package func names() -> [String] {
        // fdopendir takes the descriptor it is given: a duplicate, so that closedir leaves ours open.
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { return [] }
        guard let stream = fdopendir(copy) else {
            close(copy)
            return []
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The message for `kind` found at `path` where RenderFarm writes a file (or, `expected: .directory`,
    /// uses a folder): exit 73, naming the entry and what to do.
    package static func refusal(_ path: String, _ kind: FileKind, expected: FileKind = .regular) -> OutputError {
        let rule =
            kind == .symbolicLink
            ? "RenderFarm follows no link in its output folder" : "RenderFarm needs \(expected.rawValue) there"
        let remedy = kind == .directory ? "move it away" : "remove it"
        return .cannotCreate(
            path: path, reason: "is \(kind.rawValue), not \(expected.rawValue); \(rule): \(remedy) and run again")
    }

    /// The error of a failed `openat` of `name` with `O_NOFOLLOW`.
    func openError(_ code: Int32, _ name: String) -> OutputError {
        // ELOOP: a link (O_NOFOLLOW); ENXIO: a named pipe nobody reads, or a socket.
        if code == ELOOP { return Self.refusal(file(name), .symbolicLink) }
        if code == ENXIO || code == EISDIR, let kind = kind(of: name), kind != .regular {
            return Self.refusal(file(name), kind)
        }
        return AtomicFile.error(code, file(name))
    }

    /// Refuses a name that is not one component: the folder's writers name only entries of their own.
    func checkName(_ name: String) throws(OutputError) {
        guard Self.isName(name) else { throw .cannotCreate(path: file(name), reason: "is not a name in the folder") }
    }

    static func isName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.utf8.contains(where: { $0 == 0 || $0 == 0x2F })
    }
}
