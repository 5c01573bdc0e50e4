import CRsvg
import CairoKit

/// An SVG file parsed by librsvg (Debian's `librsvg2-dev`, the system-library target `CRsvg`), drawn once at the
/// pixel size it is shown at, so it stays sharp at any canvas scale.
///
/// The document is parsed from its bytes with no base file, so librsvg loads nothing an SVG refers to
/// outside itself (a `data:` URL is part of the file): every pixel follows from the file the manifest lists.
/// librsvg's own limits (nesting, element count, references) stay on. Not `Sendable`: a handle is used by
/// the thread that made it, in `create`.
final class SVGDocument {
    private let handle: UnsafeMutablePointer<RsvgHandle>
    /// The document's size in CSS pixels at 96 dpi, which its aspect ratio and `contain`/`cover` use.
    let width: Double
    let height: Double
    /// Whether the document has text, which librsvg draws with the system's fonts (not in the fingerprint).
    let hasText: Bool

    /// Dots per inch for physical units (`in`, `cm`, `pt`): CSS's 96, whatever librsvg's default.
    static let dpi = 96.0

    /// Whether `bytes` look like an SVG (or any XML) document: `<` first, after a byte-order mark and space.
    static func isSVG(_ bytes: [UInt8]) -> Bool {
        let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        return text.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "<")
    }

    /// Parses the SVG `bytes` read from `path` (named in messages).
    init(_ bytes: [UInt8], path: String) throws(StillImageError) {
        var error: UnsafeMutablePointer<GError>?
        guard let handle = rsvg_handle_new_from_data(bytes, gsize(bytes.count), &error) else {
            throw .undecodable(path: path, format: "SVG", reason: Self.message(error))
        }
        self.handle = handle
        rsvg_handle_set_dpi(handle, Self.dpi)
        var (width, height) = (0.0, 0.0)
        if rsvg_handle_get_intrinsic_size_in_pixels(handle, &width, &height) == 0 {
            // Without an absolute width and height, the viewBox gives the size (and so the aspect ratio).
            var hasViewBox: gboolean = 0
            var viewBox = RsvgRectangle()
            rsvg_handle_get_intrinsic_dimensions(handle, nil, nil, nil, nil, &hasViewBox, &viewBox)
            if hasViewBox != 0 { (width, height) = (viewBox.width, viewBox.height) }
        }
        self.width = width
        self.height = height
        hasText = bytes.firstRange(of: Array("<text".utf8)) != nil
        guard width > 0, height > 0, width.isFinite, height.isFinite else {
            throw .undecodable(
                path: path, format: "SVG",
                reason: "no size: give the svg element a width and height, or a viewBox, greater than 0")
        }
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(handle)) }

    /// The document drawn into `pixelWidth` × `pixelHeight` pixels, stretched to fill them.
    func rasterize(width pixelWidth: Int, height pixelHeight: Int, path: String) throws(StillImageError) -> SharedImage
    {
        let surface: ImageSurface
        let context: DrawingContext
        do {
            surface = try ImageSurface(width: pixelWidth, height: pixelHeight)
            context = try DrawingContext(surface: surface)
        } catch {
            throw .undecodable(path: path, format: "SVG", reason: "\(error)")
        }
        context.scale(Double(pixelWidth) / width, Double(pixelHeight) / height)
        var viewport = RsvgRectangle(x: 0, y: 0, width: width, height: height)
        var error: UnsafeMutablePointer<GError>?
        guard rsvg_handle_render_document(handle, context.pointer, &viewport, &error) != 0 else {
            throw .undecodable(path: path, format: "SVG", reason: Self.message(error))
        }
        surface.flush()
        return SharedImage(surface)
    }

    /// librsvg's message, freeing the error.
    private static func message(_ error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "librsvg gave no reason" }
        defer { g_error_free(error) }
        let message = error.pointee.message.map { String(cString: $0) } ?? ""
        // libxml2's messages end in a newline and may span lines: one line, for the job's error.
        let line = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        return line.isEmpty ? "librsvg gave no reason" : line.joined(separator: " ")
    }
}
