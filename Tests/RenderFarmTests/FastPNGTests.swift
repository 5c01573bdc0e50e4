import CPNG
import CPNGWriter
import CairoKit
import EffectKit
import Foundation
import Testing

/// RenderFarm's own PNG encoder (level 1, the default) on images it generates: every vector level (portable C,
/// SSE4.1, AVX2, as far as this CPU goes) writes the same bytes, and libpng decodes them to exactly the straight
/// pixels the other paths write, whatever the content: noise, flat areas, gradients, sparse shapes, any size.
/// EffectKit's SplitMix64 stream, so that a failing case is replayed from its seed.
extension SeededRandom: RandomNumberGenerator {}

/// The tests set the process's vector level in turn, so they run one at a time: two at once would compare a level
/// with itself.
@Suite("RenderFarm's PNG encoder", .serialized)
struct FastPNGTests {
    /// Premultiplied ARGB32 words for one of the content kinds, `width × height`, rows `width` words apart.
    static func pixels(kind: Int, width: Int, height: Int, random: inout SeededRandom) -> [UInt32] {
        func premultiplied(_ a: UInt32, _ r: UInt32, _ g: UInt32, _ b: UInt32) -> UInt32 {
            a << 24 | (r * a / 255) << 16 | (g * a / 255) << 8 | b * a / 255
        }
        let flat = premultiplied(UInt32.random(in: 0...255, using: &random), 200, 90, 30)
        return (0..<width * height).map { index in
            let (x, y) = (UInt32(index % width), UInt32(index / width))
            let noise = UInt32(truncatingIfNeeded: random.next())
            switch kind {
            case 0: return premultiplied(noise >> 24, noise & 0xFF, noise >> 8 & 0xFF, noise >> 16 & 0xFF)
            case 1: return flat
            case 2: return premultiplied(255, x & 0xFF, y & 0xFF, (x + y) & 0xFF)
            case 3: return noise % 50 == 0 ? premultiplied(noise >> 24, 255, 40, 90) : (y % 9 == 0 ? flat : 0)
            case 4: return premultiplied(x % 7 == 0 ? 255 : 128, (x * y) & 0xFF, 30, y & 0xFF)
            // Opaque but for the last pixel: the encoder, which guesses "opaque" from the first rows, starts again.
            default: return premultiplied(index == width * height - 1 ? 254 : 255, x & 0xFF, 60, y & 0xFF)
            }
        }
    }

    /// Encodes `pixels` at `level`; the PNG's bytes.
    static func encode(_ pixels: [UInt32], width: Int, height: Int, level: Int32 = 1) throws -> [UInt8] {
        var encoder = rf_png_encoder()
        defer { rf_png_encoder_free(&encoder) }
        var message = [CChar](repeating: 0, count: 256)
        let status = pixels.withUnsafeBytes { bytes in
            rf_png_encode_argb32(
                &encoder, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt32(width), UInt32(height),
                width * 4, level, RF_PNG_FILTER_NONE, nil, &message, 256)
        }
        try #require(status == 0, "\(String(decoding: message.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))")
        return Array(UnsafeBufferPointer(start: encoder.data, count: encoder.length))
    }

    /// libpng's reading of `png` as straight RGBA bytes.
    static func decode(_ png: [UInt8]) throws -> (width: Int, height: Int, rgba: [UInt8]) {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        try #require(png.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) } != 0)
        image.format = 3  // PNG_FORMAT_RGBA
        var rgba = [UInt8](repeating: 0, count: Int(image.width) * Int(image.height) * 4)
        let read = rgba.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }
        try #require(
            read != 0,
            "libpng: \(withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })")
        return (Int(image.width), Int(image.height), rgba)
    }

    /// The straight RGBA bytes every path writes for `pixels`.
    static func straight(_ pixels: [UInt32], width: Int, height: Int) -> [UInt8] {
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        pixels.withUnsafeBytes { source in
            rgba.withUnsafeMutableBytes { target in
                rf_argb32_to_rgba(
                    source.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt32(width), UInt32(height), width * 4,
                    target.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return rgba
    }

    @Test(
        "random images: the same bytes at every vector level, decoded by libpng to the straight pixels",
        arguments: 1...6)
    func randomImages(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let best = rf_png_set_vector_level(-1)
        defer { rf_png_set_vector_level(-1) }
        for round in 0..<40 {
            // Odd widths and heights: the vector loops' tails, rows shorter than one vector, single pixels.
            let width = Int.random(in: 1...(round % 4 == 0 ? 9 : 333), using: &random)
            let height = Int.random(in: 1...80, using: &random)
            let kind = Int.random(in: 0...5, using: &random)
            let pixels = Self.pixels(kind: kind, width: width, height: height, random: &random)
            let what = "seed \(seed) round \(round): \(width)×\(height), kind \(kind)"
            var encodings: [[UInt8]] = []
            for level in 0...best {
                rf_png_set_vector_level(level)
                encodings.append(try Self.encode(pixels, width: width, height: height))
            }
            rf_png_set_vector_level(-1)
            #expect(Set(encodings).count == 1, "\(what): the vector levels wrote different bytes")
            let decoded = try Self.decode(encodings[0])
            #expect(decoded.width == width && decoded.height == height, "\(what)")
            // IHDR's colour type: RGB (2) exactly when every pixel is opaque, else RGBA (6).
            let opaque = pixels.allSatisfy { $0 >> 24 == 0xFF }
            #expect(encodings[0][25] == (opaque ? 2 : 6), "\(what): colour type \(encodings[0][25])")
            #expect(decoded.rgba == Self.straight(pixels, width: width, height: height), "\(what): other pixels")
        }
    }

    @Test("every vector level predicts every (a, b, c) byte triple as the portable Paeth, and sums the same costs")
    func everyPaethTriple() throws {
        // With bpp 256 a row of 512 bytes has 256 triples a = cur[i - 256], b = prev[i], c = prev[i - 256]: cur's
        // first half holds every a, prev's first half one c, its second half every b shifted by s. Over every c and
        // s that is all 2^24 triples.
        let best = Int(rf_png_set_vector_level(-1))
        defer { rf_png_set_vector_level(-1) }
        try #require(best > 0, "this CPU has no vector level to compare with the portable C")
        var cur = (0..<512).map { UInt8(truncatingIfNeeded: $0 * 7) }
        var prev = [UInt8](repeating: 0, count: 512)
        var mismatches: [String] = []
        search: for c in 0..<256 {
            for shift in 0..<256 {
                for i in 0..<256 {
                    prev[i] = UInt8(c)
                    prev[256 + i] = UInt8((i + shift) & 0xFF)
                    cur[i] = UInt8(i)
                }
                var results: [(costs: [UInt32], residuals: [UInt8])] = []
                for level in 0...best {
                    rf_png_set_vector_level(Int32(level))
                    var costs: [UInt32] = [0, 0, 0]
                    var residuals = [UInt8](repeating: 0, count: 512)
                    rf_png_filter_probe(cur, prev, 512, 256, &costs, &residuals)
                    results.append((costs, residuals))
                }
                for level in 1...best
                where results[level].costs != results[0].costs
                    || results[level].residuals != results[0].residuals
                {
                    mismatches.append("level \(level), c \(c), shift \(shift)")
                }
                if mismatches.count >= 10 { break search }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        // And the portable version is PNG's Paeth (§9.4) on a few rows: the residuals undo to the row.
        rf_png_set_vector_level(0)
        var costs: [UInt32] = [0, 0, 0]
        var residuals = [UInt8](repeating: 0, count: 512)
        rf_png_filter_probe(cur, prev, 512, 256, &costs, &residuals)
        for i in 256..<512 {
            let (a, b, c) = (Int(cur[i - 256]), Int(prev[i]), Int(prev[i - 256]))
            let p = a + b - c
            let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
            let predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
            #expect(residuals[i] == cur[i] &- UInt8(predicted), "byte \(i)")
        }
    }

    @Test("big frames, whose codes are fitted to every fourth row: tokens only the other rows have still decode")
    func sampledRows() throws {
        var random = SeededRandom(seed: 11)
        // 700 × 400 × 4 bytes of rows, past the size from which rows are sampled. Rows 0, 4, 8… are transparent;
        // the others hold noise, and zero runs of every length up to 300 (every match length).
        let (width, height) = (700, 400)
        var pixels = [UInt32](repeating: 0, count: width * height)
        for y in 0..<height where y % 4 != 0 {
            var x = 0
            while x < width {
                let run = Int.random(in: 0...75, using: &random)
                x += run
                for _ in 0..<Int.random(in: 1...6, using: &random) where x < width {
                    let alpha = UInt32.random(in: 1...255, using: &random)
                    let value = UInt32.random(in: 0...alpha, using: &random)
                    pixels[y * width + x] = alpha << 24 | value << 16 | (alpha - value) << 8 | value / 2
                    x += 1
                }
            }
        }
        let best = rf_png_set_vector_level(-1)
        defer { rf_png_set_vector_level(-1) }
        var encodings: [[UInt8]] = []
        for level in 0...best {
            rf_png_set_vector_level(level)
            encodings.append(try Self.encode(pixels, width: width, height: height))
        }
        #expect(Set(encodings).count == 1, "the vector levels wrote different bytes")
        let decoded = try Self.decode(encodings[0])
        #expect(decoded.rgba == Self.straight(pixels, width: width, height: height))
    }

    @Test("residuals in Fibonacci proportions: Huffman codes limited to 15 bits still decode")
    func deepCodes() throws {
        // One row, so Sub codes it: byte i is byte i - 3 plus a residual drawn with Fibonacci frequencies, which
        // an unlimited Huffman tree would give codes of more than 15 bits.
        var counts = [1, 1]
        while counts.count < 24 { counts.append(counts[counts.count - 1] + counts[counts.count - 2]) }
        var random = SeededRandom(seed: 7)
        var residuals = counts.indices.flatMap { index in Array(repeating: UInt8(1 + index * 7), count: counts[index]) }
        residuals.shuffle(using: &random)
        let width = residuals.count / 3
        var bytes = [UInt8](repeating: 0, count: width * 3)
        for index in bytes.indices { bytes[index] = (index >= 3 ? bytes[index - 3] : 0) &+ residuals[index] }
        let pixels = (0..<width).map { x in
            0xFF00_0000 | UInt32(bytes[3 * x]) << 16 | UInt32(bytes[3 * x + 1]) << 8 | UInt32(bytes[3 * x + 2])
        }
        let decoded = try Self.decode(try Self.encode(pixels, width: width, height: 1))
        #expect(decoded.rgba == Self.straight(pixels, width: width, height: 1))
    }

    @Test("level 1 against libdeflate's level 2: no bigger on flat areas and gradients, within 1.25× on noise")
    func size() throws {
        // Frames of the bench's jobs are compared with libpng's level 1 by `make bench`; patterns that repeat at
        // a distance (which only LZ77 matches find) may come out bigger, and are not checked here.
        var random = SeededRandom(seed: 3)
        for kind in 0...2 {
            let pixels = Self.pixels(kind: kind, width: 300, height: 200, random: &random)
            let fast = try Self.encode(pixels, width: 300, height: 200).count
            let deflated = try Self.encode(pixels, width: 300, height: 200, level: 2).count
            #expect(Double(fast) <= Double(deflated) * (kind == 0 ? 1.25 : 1.0), "kind \(kind): \(fast) > \(deflated)")
        }
    }
}
