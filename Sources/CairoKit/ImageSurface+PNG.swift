import CCairo
import FileInput

extension ImageSurface {
    /// Loads a PNG file: read through `InputFile` (regular files only, never blocking), its size and
    /// IHDR header checked against `limits`, then decoded by cairo from memory.
    public convenience init(contentsOfPNG path: String, limits: ImageLimits = .surface, followLastLink: Bool = true)
        throws(ImageFileError)
    {
        let file: InputFile
        do {
            file = try InputFile(path, followLastLink: followLastLink)
        } catch {
            throw .file(error)
        }
        try self.init(png: file, limits: limits)
    }

    /// Decodes the PNG in an open `file` after checking its size and IHDR header against `limits`.
    public convenience init(png file: InputFile, limits: ImageLimits) throws(ImageFileError) {
        let bytes: [UInt8]
        do {
            bytes = try file.readAll(limit: limits.maxFileBytes)
        } catch {
            throw .file(error)
        }
        try self.init(png: bytes, path: file.path, limits: limits)
    }

    /// Decodes PNG `bytes` read from `path` (for messages) after checking their IHDR header and image data against
    /// `limits` (a decompression bomb is refused, `PNGImageData`):
    /// for callers that read the file themselves, e.g. to tell PNG from other formats by its first bytes.
    public convenience init(png bytes: [UInt8], path: String, limits: ImageLimits) throws(ImageFileError) {
        guard let header = PNGHeader(bytes) else { throw .notPNG(path: path) }
        if let limit = limits.excess(width: header.width, height: header.height) {
            throw .tooManyPixels(path: path, width: header.width, height: header.height, limit: limit)
        }
        if let bomb = PNGImageData.excess(
            in: bytes, width: header.width, height: header.height, inflate: limits.inflateBudget)
        {
            throw .bomb(path: path, detail: bomb)
        }
        do {
            try self.init(pngBytes: bytes, name: path)
        } catch {
            // cairo says "out of memory" for every libpng error: a damaged file is told as damaged.
            if let damage = PNGChunks.damage(in: bytes) { throw .damaged(path: path, detail: damage) }
            throw .undecodable(path: path, error: error)
        }
    }

    /// Decodes PNG bytes with cairo (converted to premultiplied ARGB32); `name` is for messages.
    convenience init(pngBytes bytes: [UInt8], name: String) throws(CairoError) {
        var reader = PNGByteReader(bytes: bytes)
        let surface = withUnsafeMutablePointer(to: &reader) { pointer in
            cairo_image_surface_create_from_png_stream(
                { closure, data, length in
                    guard let closure, let data else { return CAIRO_STATUS_READ_ERROR }
                    let reader = closure.assumingMemoryBound(to: PNGByteReader.self)
                    return reader.pointee.copy(into: data, count: Int(length))
                }, pointer)
        }
        guard let surface else { throw CairoError(CAIRO_STATUS_NO_MEMORY, "reading \(name)") }
        try self.init(adopting: surface, operation: "reading \(name)")
    }
}

/// The cursor cairo's stream reader pulls PNG bytes from.
private struct PNGByteReader {
    let bytes: [UInt8]
    var offset = 0

    mutating func copy(into destination: UnsafeMutablePointer<UInt8>, count: Int) -> cairo_status_t {
        guard count <= bytes.count - offset else { return CAIRO_STATUS_READ_ERROR }
        bytes.withUnsafeBufferPointer { source in
            guard let base = source.baseAddress else { return }
            destination.update(from: base + offset, count: count)
        }
        offset += count
        return CAIRO_STATUS_SUCCESS
    }
}
