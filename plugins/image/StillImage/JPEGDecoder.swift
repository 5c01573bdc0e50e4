import CTurboJPEG
import CairoKit

/// JPEG files decoded by libjpeg-turbo's TurboJPEG API: the header read first and checked against the limits,
/// then the pixels decoded straight into a cairo surface.
enum JPEGDecoder {
    /// Every JPEG starts with a start-of-image marker followed by another marker (ITU T.81, B.1.1.2).
    static let signature: [UInt8] = [0xFF, 0xD8, 0xFF]

    static func isJPEG(_ bytes: [UInt8]) -> Bool { bytes.starts(with: signature) }

    /// Accurate IDCT, so the pixels do not depend on which fast path a machine takes; stop at the first
    /// warning (a truncated or damaged file is refused, not drawn half grey); refuse progressive files with
    /// an unreasonable number of scans (which take minutes to decode).
    static let flags = TJFLAG_ACCURATEDCT | TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS

    /// cairo's ARGB32 is a native-endian 32-bit word: B, G, R, A bytes on a little-endian machine. JPEG has no
    /// alpha; TurboJPEG fills it with 255, so the pixels are premultiplied as they are.
    #if _endian(little)
        static let pixelFormat = TJPF_BGRA
    #else
        static let pixelFormat = TJPF_ARGB
    #endif

    /// The decoded image of JPEG `bytes` read from `path` (named in messages).
    static func decode(_ bytes: [UInt8], path: String, limits: ImageLimits) throws(StillImageError) -> ImageSurface {
        guard let handle = tjInitDecompress() else {
            throw .undecodable(path: path, format: "JPEG", reason: "libjpeg-turbo could not start")
        }
        defer { tjDestroy(handle) }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let header = bytes.withUnsafeBufferPointer { buffer in
            tjDecompressHeader3(
                handle, buffer.baseAddress, UInt(buffer.count), &width, &height, &subsampling, &colorspace)
        }
        guard header == 0 else { throw .undecodable(path: path, format: "JPEG", reason: message(handle)) }
        if colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue) {
            throw .undecodable(path: path, format: "JPEG", reason: "CMYK is not supported; save it as RGB")
        }
        if let limit = limits.excess(width: Int(width), height: Int(height)) {
            throw .file(.tooManyPixels(path: path, width: Int(width), height: Int(height), limit: limit))
        }
        let surface: ImageSurface
        do {
            surface = try ImageSurface(width: Int(width), height: Int(height))
        } catch {
            throw .undecodable(path: path, format: "JPEG", reason: error.description)
        }
        surface.flush()
        let status = bytes.withUnsafeBufferPointer { buffer in
            tjDecompress2(
                handle, buffer.baseAddress, UInt(buffer.count), surface.bytes, width, Int32(surface.stride), height,
                Int32(pixelFormat.rawValue), flags)
        }
        guard status == 0 else { throw .undecodable(path: path, format: "JPEG", reason: message(handle)) }
        surface.markDirty()
        return surface
    }

    /// libjpeg-turbo's message for the last error of `handle`, e.g. "Premature end of JPEG file".
    private static func message(_ handle: tjhandle) -> String {
        guard let text = tjGetErrorStr2(handle) else { return "unknown error" }
        return String(cString: text)
    }
}
