import CPNGWriter
import CairoKit
import Foundation
import Testing

/// The C encoder's paths write PNGs that decode to the pixels they were given.
@Suite("PNG encoder paths")
struct PNGEncoderTests {
    /// A 97 × 61 image: opaque colour ramps, or mostly transparent with one opaque band.
    static func image(transparent: Bool) throws -> ImageSurface {
        let surface = try ImageSurface(width: 97, height: 61)
        surface.flush()
        for y in 0..<surface.height {
            // Rows of cairo's own buffer, stride bytes apart, each holding width 32-bit pixels.
            let row = UnsafeMutableRawPointer(surface.bytes + y * surface.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<surface.width {
                let colour = UInt32(x * 2) << 16 | UInt32(y * 4) << 8 | UInt32((x + y) % 256)
                row[x] = transparent && !(20..<30).contains(y) ? 0 : 0xFF00_0000 | colour
            }
        }
        surface.markDirty()
        return surface
    }

    static let cases: [(transparent: Bool, level: Int32, filter: rf_png_filter, compressor: rf_png_compressor)] = [
        (false, 1, RF_PNG_FILTER_NONE, RF_PNG_COMPRESSOR_RENDERFARM),
        (true, 1, RF_PNG_FILTER_NONE, RF_PNG_COMPRESSOR_RENDERFARM),
        (false, 2, RF_PNG_FILTER_NONE, RF_PNG_COMPRESSOR_LIBDEFLATE),
        (false, 0, RF_PNG_FILTER_NONE, RF_PNG_COMPRESSOR_LIBDEFLATE),
        (true, 2, RF_PNG_FILTER_NONE, RF_PNG_COMPRESSOR_ZLIB),
        (false, 3, RF_PNG_FILTER_NONE, RF_PNG_COMPRESSOR_ZLIB),
        (true, 9, RF_PNG_FILTER_ADAPTIVE, RF_PNG_COMPRESSOR_LIBPNG),
    ]

    @Test("each path round-trips the pixels", arguments: cases.indices)
    func roundTrip(index: Int) throws {
        let testCase = Self.cases[index]
        let source = try Self.image(transparent: testCase.transparent)
        var encoder = rf_png_encoder()
        defer { rf_png_encoder_free(&encoder) }
        var message = [CChar](repeating: 0, count: 256)
        let status = rf_png_encode_argb32(
            &encoder, source.bytes, UInt32(source.width), UInt32(source.height),
            source.stride, testCase.level, testCase.filter, nil, &message, 256)
        #expect(status == 0)
        #expect(encoder.compressor == testCase.compressor)
        #expect((encoder.opaque != 0) == !testCase.transparent)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rf-png-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(bytes: encoder.data, count: encoder.length).write(to: file)
        let decoded = try ImageSurface(contentsOfPNG: file.path)
        #expect(decoded.width == source.width && decoded.height == source.height)
        var mismatches = 0
        for y in 0..<source.height {
            for x in 0..<source.width where decoded.pixel(x: x, y: y) != source.pixel(x: x, y: y) {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
    }
}
