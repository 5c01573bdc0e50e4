import CVideoFrame
import Testing

@testable import RenderFarm

/// The conversion `render --video` and `encode` do before ffmpeg (CVideoFrame).
@Suite("Frames converted to YUV 4:2:0", .serialized)
struct VideoFrameTests {
    /// `pixels` (4 bytes each, `width` per row) converted; planes Y, U, V (and A).
    static func convert(
        _ pixels: [UInt8], width: Int, height: Int, order: rf_pixel_order = RF_PIXEL_RGBA,
        matrix: rf_yuv_matrix = RF_YUV_BT709, alpha: Bool = false
    ) -> [UInt8] {
        let size = rf_yuv420_frame_size(UInt32(width), UInt32(height), alpha ? 1 : 0)
        var output = [UInt8](repeating: 0, count: size)
        let status = output.withUnsafeMutableBufferPointer { destination in
            rf_yuv420_convert(
                pixels, UInt32(width), UInt32(height), width * 4, order, matrix, alpha ? 1 : 0,
                destination.baseAddress)
        }
        #expect(status == 0)
        return output
    }

    @Test("limited range: black is 16, white 235, grey has neutral chroma; BT.709 and BT.601 primaries")
    func knownValues() {
        func solid(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ matrix: rf_yuv_matrix) -> (UInt8, UInt8, UInt8) {
            let planes = Self.convert([[UInt8]](repeating: [r, g, b, 255], count: 4).flatMap { $0 }, width: 2,
                height: 2, matrix: matrix)
            return (planes[0], planes[4], planes[5])
        }
        #expect(solid(0, 0, 0, RF_YUV_BT709) == (16, 128, 128))
        #expect(solid(255, 255, 255, RF_YUV_BT709) == (235, 128, 128))
        #expect(solid(128, 128, 128, RF_YUV_BT601) == (126, 128, 128))
        // ITU-R BT.709 red: Y 63, Cb 102, Cr 240; BT.601 red: Y 81, Cb 90, Cr 240.
        #expect(solid(255, 0, 0, RF_YUV_BT709) == (63, 102, 240))
        #expect(solid(255, 0, 0, RF_YUV_BT601) == (81, 90, 240))
    }

    @Test("odd sizes are padded right and bottom with black: opaque without alpha, transparent with")
    func padding() {
        let white = [UInt8](repeating: 255, count: 3 * 3 * 4)
        let opaque = Self.convert(white, width: 3, height: 3)
        #expect(opaque.count == 4 * 4 + 2 * 2 * 2)
        #expect(Array(opaque[0..<4]) == [235, 235, 235, 16] && Array(opaque[12..<16]) == [16, 16, 16, 16])
        let transparent = Self.convert(white, width: 3, height: 3, matrix: RF_YUV_BT601, alpha: true)
        let alpha = Array(transparent[24...])
        #expect(alpha.count == 16 && Array(alpha[0..<4]) == [255, 255, 255, 0] && Array(alpha[12..<16]) == [0, 0, 0, 0])
    }

    @Test("the AVX2 loop and the scalar loop give the same bytes, every width, both orders and matrices")
    func simdEqualsScalar() {
        var random = SystemRandomNumberGenerator()
        defer { rf_yuv420_force_scalar(0) }
        for width in [1, 2, 15, 16, 17, 31, 32, 33, 64, 127, 750] {
            let height = Int.random(in: 1...9, using: &random)
            let pixels = (0..<width * height * 4).map { _ in UInt8.random(in: 0...255, using: &random) }
            for (order, matrix, alpha) in [
                (RF_PIXEL_ARGB32, RF_YUV_BT709, false), (RF_PIXEL_RGBA, RF_YUV_BT601, true),
            ] {
                rf_yuv420_force_scalar(1)
                let scalar = Self.convert(pixels, width: width, height: height, order: order, matrix: matrix, alpha: alpha)
                rf_yuv420_force_scalar(0)
                let fast = Self.convert(pixels, width: width, height: height, order: order, matrix: matrix, alpha: alpha)
                #expect(scalar == fast, "width \(width), height \(height)")
            }
        }
    }

    @Test("an alpha-packed frame: the colour as stored (premultiplied), the alpha as grey, black around")
    func alphaPacked() {
        // 2×1 ARGB32 words: opaque red, and half-transparent white stored premultiplied (0x80808080).
        let words: [UInt32] = [0xFFFF_0000, 0x8080_8080]
        let pixels = words.flatMap { word in withUnsafeBytes(of: word) { Array($0) } }
        var packed = [UInt32](repeating: 0, count: 8 * 2)
        packed.withUnsafeMutableBytes { destination in
            rf_alpha_packed_compose(pixels, 2, 1, 8, 4, 1, destination.baseAddress, 8, 2)
        }
        let black: UInt32 = 0xFF00_0000
        #expect(Array(packed[0..<8]) == [0xFFFF_0000, 0xFF80_8080, black, black, black, black, black, black])
        #expect(Array(packed[8..<16]) == [black, black, black, black, 0xFFFF_FFFF, 0xFF80_8080, black, black])
    }
}
