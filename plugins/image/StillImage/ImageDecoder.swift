import CairoKit
import FileInput

/// Reads a PNG, JPEG or SVG file once, tells the format by its first bytes, and decodes it within the limits
/// of the images a job names (``ImageLimits/assets``: checked on the file's size and, for pixels, on the
/// header before any pixel memory is allocated).
enum ImageDecoder {
    /// A decoded file: pixels, or an SVG document to draw at the size it is shown at.
    enum Decoded {
        case pixels(SharedImage)
        case vector(SVGDocument)
    }

    /// The decoded image of the file at `path`, which must already be resolved and confined (a symbolic link
    /// swapped in since is refused, not followed).
    static func load(_ path: String, limits: ImageLimits = .assets) throws(StillImageError) -> Decoded {
        let bytes: [UInt8]
        do {
            let file = try InputFile(path, followLastLink: false)
            bytes = try file.readAll(limit: limits.maxFileBytes)
        } catch {
            throw .file(.file(error))
        }
        let surface: ImageSurface
        if PNGHeader(bytes) != nil {
            do {
                surface = try ImageSurface(png: bytes, path: path, limits: limits)
            } catch {
                throw .file(error)
            }
        } else if JPEGDecoder.isJPEG(bytes) {
            surface = try JPEGDecoder.decode(bytes, path: path, limits: limits)
        } else if SVGDocument.isSVG(bytes) {
            return .vector(try SVGDocument(bytes, path: path))
        } else {
            throw .unknownFormat(path: path)
        }
        return .pixels(SharedImage(surface))
    }
}
