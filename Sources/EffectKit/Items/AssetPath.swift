import Foundation

/// Resolves asset paths named in a job (e.g. an item's `image`) inside the job file's folder.
///
/// A job may only read files in its own folder tree: the path is taken relative to the folder, symbolic
/// links are resolved, and anything that ends up outside is refused before it is opened.
public enum AssetPath {
    /// The absolute, symlink-free path of `path` (relative to `jobDirectory`, or absolute), which must lie
    /// inside `jobDirectory`; errors name `parameter`.
    public static func resolve(_ path: String, in jobDirectory: String, parameter: String) throws(EffectError) -> String
    {
        guard !path.isEmpty else { throw EffectError(parameter: parameter, "empty path") }
        guard !path.utf8.contains(0) else { throw EffectError(parameter: parameter, "path contains a NUL byte") }
        guard let folder = realPath(jobDirectory) else {
            throw EffectError(parameter: parameter, "the job's folder \(jobDirectory) cannot be resolved")
        }
        let joined = path.hasPrefix("/") ? path : (folder as NSString).appendingPathComponent(path)
        // Lexically first, so "../x.png" is refused the same way whether or not it exists.
        let lexical = (joined as NSString).standardizingPath
        guard isInside(lexical, folder) else { throw outside(path, parameter) }
        guard let resolved = realPath(joined) else {
            throw EffectError(parameter: parameter, "\(path) not found in the job's folder \(folder)")
        }
        guard isInside(resolved, folder) else { throw outside(path, parameter) }
        return resolved
    }

    private static func outside(_ path: String, _ parameter: String) -> EffectError {
        EffectError(parameter: parameter, "\(path) resolves outside the job's folder")
    }

    private static func isInside(_ path: String, _ folder: String) -> Bool {
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        return path.hasPrefix(prefix)
    }

    /// `realpath(3)`: absolute, no symbolic links, no "." or ".."; nil when it does not exist.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
