import CairoKit
import FileInput

/// Reads a PNG or JPEG file once, tells the format by its first bytes, and decodes it within the limits of
/// the images a job names (``ImageLimits/assets``: checked on the file's size and on its header before any
/// pixel memory is allocated).
enum ImageDecoder {
    /// The decoded image of the file at `path`, which must already be resolved and confined (a symbolic link
    /// swapped in since is refused, not followed).
    static func load(_ path: String, limits: ImageLimits = .assets) throws(StillImageError) -> SharedImage {
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
        } else {
            throw .unknownFormat(path: path)
        }
        return SharedImage(surface)
    }
}
