import FileInput

/// Why a PNG file could not be loaded. Messages start with the path.
public enum ImageFileError: Error, Equatable, CustomStringConvertible {
    /// Missing, not a regular file, too many bytes, or unreadable.
    case file(InputFileError)
    /// The bytes do not start with a PNG signature and header.
    case notPNG(path: String)
    /// The header declares more pixels than the limits allow; nothing was decoded.
    case tooManyPixels(path: String, width: Int, height: Int, limit: String)
    /// cairo (libpng) could not decode the file.
    case undecodable(path: String, error: CairoError)
    /// The file's chunks are damaged (`PNGChunks`): a CRC that does not match, or the file cut off.
    case damaged(path: String, detail: String)
    /// The image data is more, or inflates to more, than the header's rows (`PNGImageData`); nothing was decoded.
    case bomb(path: String, detail: String)

    public var path: String {
        switch self {
        case .file(let error): error.path
        case .notPNG(let path), .tooManyPixels(let path, _, _, _), .undecodable(let path, _), .damaged(let path, _),
            .bomb(let path, _):
            path
        }
    }

    public var description: String { message(naming: path) }

    /// The message with `name` standing for the path, e.g. the path as a job file wrote it.
    public func message(naming name: String) -> String { "\(EscapedPath.of(name)) \(reason)" }

    /// What is wrong, without the path: "is a named pipe, not a file".
    public var reason: String {
        switch self {
        case .file(let error): error.reason
        case .notPNG: "is not a readable PNG (no PNG header)"
        case .tooManyPixels(_, let width, let height, let limit):
            "is \(width) × \(height) pixels, too large to draw (\(limit))"
        case .undecodable(_, let error): "is not a readable PNG (\(error))"
        case .damaged(_, let detail): "is a damaged PNG: \(detail); save or copy it again"
        case .bomb(_, let detail): "is refused: \(detail)"
        }
    }
}
