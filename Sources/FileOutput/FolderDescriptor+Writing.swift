import FileInput
import Foundation

extension FolderDescriptor {
    /// Writes `bytes` to `name` whole: to a temporary name beside it (made with `O_EXCL | O_NOFOLLOW`),
    /// renamed over `name` with `renameat`, with permissions `mode` (less the umask) from the start. Anything but
    /// a file at `name` is refused, and nothing is written through it.
    package func write(_ bytes: UnsafeRawBufferPointer, to name: String, mode: mode_t = 0o644) throws(OutputError) {
        try checkWritable(name)
        switch StagedWrite.stage(bytes, beside: name, in: descriptor, mode: mode) {
        // Messages name the file asked for: the temporary name is the writer's own business.
        case .failure(let failure): throw AtomicFile.error(failure.code, file(name))
        case .success(let temporary): try commit(temporary, as: name)
        }
    }

    package func write(_ bytes: [UInt8], to name: String, mode: mode_t = 0o644) throws(OutputError) {
        // The closure of withUnsafeBytes cannot throw a typed error: it is carried out in a Result.
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(OutputError) in try write(buffer, to: name, mode: mode) }
        }
        try result.get()
    }

    /// Writes `text` and a line feed to `name` whole.
    package func write(_ text: String, to name: String) throws(OutputError) {
        try write(Array(text.utf8) + [UInt8(ascii: "\n")], to: name)
    }

    /// Writes `name` from the file `source` of this folder: a copy, or (`link`) a hard link to the same
    /// inode; either appears under its final name whole or not at all. `source` must be a file.
    package func duplicate(_ source: String, to name: String, link: Bool) throws(OutputError) {
        try checkWritable(name)
        guard link else {
            let bytes: [UInt8]
            do {
                bytes = try openForReading(source).readAll(limit: Int.max)
            } catch {
                throw .io(path: file(source), reason: error.reason)
            }
            try write(bytes, to: name)
            return
        }
        // linkat without AT_SYMLINK_FOLLOW links what is there: only a file may be.
        try checkName(source)
        if let kind = kind(of: source), kind != .regular { throw Self.refusal(file(source), kind) }
        let temporary = StagedWrite.temporaryName(for: name)
        guard linkat(descriptor, source, descriptor, temporary, 0) == 0 else {
            throw AtomicFile.error(errno, file(name))
        }
        try commit(temporary, as: name)
    }

    /// Renames `temporary` over `name` once nothing but a file is there; the temporary file goes either way.
    private func commit(_ temporary: String, as name: String) throws(OutputError) {
        do {
            try checkWritable(name)
        } catch {
            unlinkat(descriptor, temporary, 0)
            throw error
        }
        if let failure = StagedWrite.commit(temporary, as: name, in: descriptor) {
            throw AtomicFile.error(failure.code, file(name))
        }
    }

    /// Removes temporary files (`StagedWrite.temporaryMarker`) that a killed process left behind: only those
    /// older than `age` seconds, as a shard on another host may be writing a young one right now.
    package func removeStale(olderThan age: TimeInterval = 3600) {
        let now = Date().timeIntervalSince1970
        for name in names() where name.hasPrefix(StagedWrite.temporaryMarker) {
            var info = stat()
            guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            if now - modified > age { unlinkat(descriptor, name, 0) }
        }
    }
}
