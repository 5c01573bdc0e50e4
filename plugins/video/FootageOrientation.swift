import CCairo
import EffectKit

/// How a clip's pictures are turned for display: the stream's display matrix (phones store portrait video
/// as landscape pictures with a matrix that turns them), as FFmpeg's own players apply it. Pictures turn by
/// multiples of 90° and may be mirrored; a matrix that does anything else is refused.
///
/// A stored pixel (x, y) shows at (a·x + c·y, b·x + d·y), moved so that the turned picture starts at (0, 0):
/// libavutil's display-matrix convention (`display.h`), in pixel coordinates with y down.
struct FootageOrientation: Sendable, Equatable {
    let a: Int
    let b: Int
    let c: Int
    let d: Int

    static let upright = FootageOrientation(a: 1, b: 0, c: 0, d: 1)

    private init(a: Int, b: Int, c: Int, d: Int) {
        (self.a, self.b, self.c, self.d) = (a, b, c, d)
    }

    /// The orientation of a display matrix (nine 32-bit values, 16.16 fixed point but for the last column),
    /// or nil when it turns by other than a multiple of 90°, scales, or has perspective.
    init?(displayMatrix m: [Int32]) {
        guard m.count == 9, m[2] == 0, m[5] == 0 else { return nil }
        let one: Int32 = 1 << 16
        let entries = [m[0], m[1], m[3], m[4]]
        guard entries.allSatisfy({ $0 == 0 || $0 == one || $0 == -one }) else { return nil }
        let (a, b, c, d) = (Int(m[0] / one), Int(m[1] / one), Int(m[3] / one), Int(m[4] / one))
        // Exactly one non-zero entry in each row and column: a turn by 90° steps, possibly mirrored.
        guard abs(a) + abs(c) == 1, abs(b) + abs(d) == 1, abs(a) + abs(b) == 1 else { return nil }
        self.init(a: a, b: b, c: c, d: d)
    }

    /// Whether width and height trade places on screen.
    private var turnsSideways: Bool { a == 0 }

    /// A picture of `size` as it shows on screen.
    func displayed(_ size: Size) -> Size {
        turnsSideways ? Size(width: size.height, height: size.width) : size
    }

    /// The matrix from stored pixel coordinates to displayed ones, for a `width` × `height` picture.
    func matrix(width: Int, height: Int) -> cairo_matrix_t {
        let (w, h) = (Double(width), Double(height))
        let x0 = -(min(0, Double(a) * w) + min(0, Double(c) * h))
        let y0 = -(min(0, Double(b) * w) + min(0, Double(d) * h))
        return cairo_matrix_t(xx: Double(a), yx: Double(b), xy: Double(c), yy: Double(d), x0: x0, y0: y0)
    }
}
