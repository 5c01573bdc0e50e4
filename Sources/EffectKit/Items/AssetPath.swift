import FileInput

/// Resolves asset paths named in a job (e.g. an item's `image`) inside the job file's folder.
///
/// A job may only read files in its own folder tree: the path is taken relative to the folder, symbolic
/// links are resolved, and anything that ends up outside is refused before it is opened (`ConfinedPath`).
public enum AssetPath {
    /// The absolute, symlink-free path of `path` (relative to `jobDirectory`, or absolute), which must lie
    /// inside `jobDirectory`; errors name `parameter`.
    public static func resolve(_ path: String, in jobDirectory: String, parameter: String) throws(EffectError) -> String
    {
        do {
            return try ConfinedPath.resolve(path, in: jobDirectory)
        } catch {
            throw EffectError(parameter: parameter, error.description)
        }
    }
}
