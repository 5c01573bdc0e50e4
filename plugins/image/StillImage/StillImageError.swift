import CairoKit

/// Why an image file could not be loaded; messages start with the path.
enum StillImageError: Error, Equatable {
    /// What a PNG asset can fail with too: missing, not a regular file, too large, undecodable PNG.
    case file(ImageFileError)
    /// The first bytes are not a PNG's, a JPEG's or an SVG's.
    case unknownFormat(path: String)
    /// The decoder refused the file (damaged, truncated, an unsupported variant).
    case undecodable(path: String, format: String, reason: String)

    /// The message with `name` standing for the path, e.g. the path as the job wrote it.
    func message(naming name: String) -> String {
        switch self {
        case .file(let error): error.message(naming: name)
        case .unknownFormat: "\(name) is not a PNG, JPEG or SVG file (judged by its first bytes)"
        case .undecodable(_, let format, let reason): "\(name) is not a readable \(format) (\(reason))"
        }
    }
}
