import Glibc

/// Paths a job names (image assets, data files) resolved inside the job's folder: taken relative to the
/// folder, symbolic links resolved, and refused when they end up outside, before anything is opened.
/// Open the result with `InputFile(_:followLastLink: false)`, so a link swapped in since is refused.
public enum ConfinedPath {
    /// Why a path a job names is refused; messages start with the path as the job wrote it.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case empty
        case nulByte(path: String)
        case folderUnresolvable(folder: String)
        case outside(path: String)
        case notFound(path: String, folder: String)

        public var description: String {
            switch self {
            case .empty: "empty path"
            case .nulByte: "path contains a NUL byte"
            case .folderUnresolvable(let folder): "the job's folder \(folder) cannot be resolved"
            case .outside(let path): "\(path) resolves outside the job's folder"
            case .notFound(let path, let folder): "\(path) not found in the job's folder \(folder)"
            }
        }
    }

    /// The absolute, symlink-free path of `path` (relative to `folder`, or absolute), which must lie inside
    /// `folder`.
    public static func resolve(_ path: String, in folder: String) throws(Problem) -> String {
        guard !path.isEmpty else { throw .empty }
        guard !path.utf8.contains(0) else { throw .nulByte(path: path) }
        guard let root = realPath(folder) else { throw .folderUnresolvable(folder: folder) }
        let joined = path.hasPrefix("/") ? path : root + "/" + path
        // Lexically first, so "../x.png" is refused the same way whether or not it exists.
        guard isInside(lexicallyNormal(joined), root) else { throw .outside(path: path) }
        guard let resolved = realPath(joined) else { throw .notFound(path: path, folder: root) }
        guard isInside(resolved, root) else { throw .outside(path: path) }
        return resolved
    }

    private static func isInside(_ path: String, _ folder: String) -> Bool {
        path.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
    }

    /// `path` without "." and ".." components and repeated slashes (no file system access); absolute when `path`
    /// is, and a ".." at the top of a relative one is dropped (check the path is inside its folder first).
    public static func lexicallyNormal(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == ".." {
                _ = parts.popLast()
            } else {
                parts.append(part)
            }
        }
        return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
    }

    /// `realpath(3)`: absolute, no symbolic links, no "." or ".."; nil when it does not exist.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
