import CairoKit
import EffectKit
import Foundation
import Testing

/// The compositor composites a layer only inside the box of its pixels that are not transparent (`inkBounds`),
/// which must give the same bytes as compositing the whole surface: generated layers (anti-aliased shapes of
/// random colours and alphas, or nothing), over generated frames, in every blend mode, at full and half opacity
/// and through a mask.
@Suite("compositing a layer inside its ink bounds")
struct CompositeAreaTests {
    static let (width, height) = (97, 61)

    /// A surface with `shapes` random anti-aliased rectangles and circles (none: left transparent).
    static func drawn(
        _ shapes: Int, opaqueBackground: Bool = false, random: inout SeededRandom
    ) throws -> ImageSurface {
        let surface = try ImageSurface(width: width, height: height)
        let context = try DrawingContext(surface: surface)
        context.scale(1.3, 0.9)
        func unit() -> Double { random.unit() }
        if opaqueBackground {
            context.setSource(Color(red: unit(), green: unit(), blue: unit(), alpha: 1))
            context.paint()
        }
        for _ in 0..<shapes {
            context.setSource(Color(red: unit(), green: unit(), blue: unit(), alpha: 0.1 + 0.9 * unit()))
            let (x, y) = (unit() * Double(width), unit() * Double(height))
            if unit() < 0.5 {
                context.rectangle(x: x, y: y, width: unit() * 30 + 0.5, height: unit() * 20 + 0.5)
            } else {
                context.arc(centerX: x, centerY: y, radius: unit() * 15 + 0.3, from: 0, to: 2 * .pi)
            }
            context.fill()
        }
        surface.flush()
        return surface
    }

    static func bytes(_ surface: ImageSurface) -> [UInt8] {
        surface.flush()
        return (0..<surface.height).flatMap { y in
            Array(UnsafeBufferPointer(start: surface.bytes + y * surface.stride, count: surface.width * 4))
        }
    }

    @Test("inkBounds is the smallest box around every pixel that is not 0", arguments: 1...3)
    func bounds(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        for round in 0..<30 {
            let surface = try Self.drawn(round % 5, random: &random)
            let pixels = Self.bytes(surface)
            var (left, top, right, bottom) = (Self.width, Self.height, -1, -1)
            for y in 0..<Self.height {
                for x in 0..<Self.width
                where pixels[(y * Self.width + x) * 4..<(y * Self.width + x) * 4 + 4].contains(where: { $0 != 0 }) {
                    (left, top, right, bottom) = (min(left, x), min(top, y), max(right, x), max(bottom, y))
                }
            }
            let expected =
                right < 0 ? nil : PixelBox(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
            #expect(surface.inkBounds() == expected, "seed \(seed) round \(round)")
        }
    }

    @Test("every blend mode, opacity and mask: the same bytes as compositing the whole surface", arguments: 1...3)
    func sameBytes(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        for round in 0..<12 {
            let layer = try Self.drawn(1 + round % 4, random: &random)
            guard let area = layer.inkBounds() else { continue }
            let background = try Self.drawn(6, opaqueBackground: round % 2 == 0, random: &random)
            let mask = try ImageSurface.alphaMask(width: Self.width, height: Self.height)
            mask.flush()
            for y in 0..<Self.height {
                for x in 0..<Self.width { mask.bytes[y * mask.stride + x] = UInt8(truncatingIfNeeded: x * 7 + y * 3) }
            }
            mask.markDirty()
            for blend in BlendMode.allCases {
                for (alpha, masked) in [(1.0, false), (0.5, false), (1.0, true)] {
                    var results: [[UInt8]] = []
                    for clipped in [false, true] {
                        let frame = try ImageSurface(width: Self.width, height: Self.height)
                        let context = try DrawingContext(surface: frame)
                        // Every third round over a new frame, which cairo knows to be clear.
                        if round % 3 != 2 {
                            context.setSource(background, x: 0, y: 0)
                            context.paint()
                        }
                        context.composite(
                            layer, blend: blend, alpha: alpha, mask: masked ? mask : nil, area: clipped ? area : nil)
                        results.append(Self.bytes(frame))
                    }
                    #expect(
                        results[0] == results[1],
                        "seed \(seed) round \(round): \(blend), alpha \(alpha), mask \(masked)")
                }
            }
        }
    }
}
