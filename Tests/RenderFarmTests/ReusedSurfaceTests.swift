import CairoKit
import EffectKit
import Testing

/// A surface reused from frame to frame draws what a new one draws. cairo fills differently, with other
/// rounding, on a surface it knows to be clear (`OVER` there is filled as `SOURCE`), so a reused surface
/// must be left in the state a new one is in, not only with the same pixels: else a frame's bytes depend on
/// the frames its worker drew before (issue 43's harness: partial renders differed from whole ones).
@Suite("Reused surfaces")
struct ReusedSurfaceTests {
    /// A 40-point box in a colour that is not opaque, turned and placed off the pixel grid, as a
    /// physics-bounce item in a turned group is drawn.
    static func drawBox(on surface: ImageSurface, step: Int) throws -> [UInt8] {
        let context = try DrawingContext(surface: surface)
        context.translate(86.69, 42.32)
        context.rotate(2.37)
        context.translate(30 + Double(step) * 0.173, 40 - Double(step) * 0.091)
        context.rotate(2.37 + Double(step) * 0.01)
        context.roundedRectangle(Rect(center: Point(0, 0), size: Size(width: 40, height: 40)), radius: 4.8)
        context.setSource(Color(red: 0.99, green: 0.3, blue: 0.73, alpha: 0.81))
        context.fill()
        surface.flush()
        return Array(UnsafeBufferPointer(start: surface.bytes, count: surface.stride * surface.height))
    }

    @Test("a cleared surface draws the bytes a new one draws", arguments: 0..<8)
    func clearedDrawsAsNew(step: Int) throws {
        let reused = try ImageSurface(width: 78, height: 96)
        _ = try Self.drawBox(on: reused, step: step + 1)
        reused.clear()
        let new = try Self.drawBox(on: ImageSurface(width: 78, height: 96), step: step)
        #expect(try Self.drawBox(on: reused, step: step) == new)
    }
}
