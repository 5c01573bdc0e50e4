import CLibAV
import Glibc
import Testing

/// `rf_av_convert_420`, the footage's YUV → BGRA conversion: its SSE2 path makes exactly the bytes of its plain
/// C path for every (Y, Cb, Cr) triple, and both follow the documented formula. The footage's frames, their
/// hashes and the references of `hearts-over-footage` depend on those bytes.
@Suite("Footage conversion")
struct FootageConversionTests {
    /// 16.16 factors as `FootageColor` makes them: BT.601, BT.709 and BT.2020, limited and full range.
    static let matrices: [(name: String, matrix: [Int32], offset: Int32)] = {
        var result: [(String, [Int32], Int32)] = []
        for (name, kr, kb) in [("601", 0.299, 0.114), ("709", 0.2126, 0.0722), ("2020", 0.2627, 0.0593)] {
            for full in [false, true] {
                let (luma, chroma) = full ? (1.0, 1.0) : (255.0 / 219.0, 255.0 / 224.0)
                let kg = 1 - kr - kb
                let factors = [
                    luma, 2 * (1 - kr) * chroma, 2 * kb * (1 - kb) / kg * chroma, 2 * kr * (1 - kr) / kg * chroma,
                    2 * (1 - kb) * chroma,
                ]
                result.append(
                    (name + (full ? " full" : " limited"), factors.map { Int32(($0 * 65536).rounded()) }, full ? 0 : 16)
                )
            }
        }
        return result
    }()

    /// A yuv420p frame of `width` × `height` whose samples come from the closures (luma by pixel, chroma by sample).
    final class Frame {
        let frame: UnsafeMutablePointer<AVFrame>
        let planes: [[UInt8]]

        convenience init(
            width: Int, height: Int, luma: (Int, Int) -> UInt8, cb: (Int, Int) -> UInt8, cr: (Int, Int) -> UInt8
        ) {
            let (cw, ch) = ((width + 1) / 2, (height + 1) / 2)
            self.init(
                width: width, height: height,
                planes: [
                    (0..<height).flatMap { y in (0..<width).map { x in luma(x, y) } },
                    (0..<ch).flatMap { y in (0..<cw).map { x in cb(x, y) } },
                    (0..<ch).flatMap { y in (0..<cw).map { x in cr(x, y) } },
                ])
        }

        init(width: Int, height: Int, planes: [[UInt8]]) {
            let cw = (width + 1) / 2
            self.planes = planes
            frame = av_frame_alloc()!
            frame.pointee.width = Int32(width)
            frame.pointee.height = Int32(height)
            frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
            frame.pointee.linesize.0 = Int32(width)
            frame.pointee.linesize.1 = Int32(cw)
            frame.pointee.linesize.2 = Int32(cw)
        }

        deinit {
            var pointer: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&pointer)
        }

        /// BGRA rows of `width × 4` bytes, by the SSE2 path (`simd`) or the plain C one.
        func convert(_ matrix: [Int32], offset: Int32, simd: Bool) -> [UInt8] {
            let (width, height) = (Int(frame.pointee.width), Int(frame.pointee.height))
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            // The conversion only reads the planes.
            planes[0].withUnsafeBufferPointer { y in
                planes[1].withUnsafeBufferPointer { u in
                    planes[2].withUnsafeBufferPointer { v in
                        frame.pointee.data.0 = y.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
                        frame.pointee.data.1 = u.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
                        frame.pointee.data.2 = v.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
                        pixels.withUnsafeMutableBufferPointer { out in
                            rf_av_convert_420(frame, out.baseAddress, Int32(width * 4), matrix, offset, simd ? 1 : 0)
                        }
                        frame.pointee.data = (nil, nil, nil, nil, nil, nil, nil, nil)
                    }
                }
            }
            return pixels
        }
    }

    /// The formula of `rf_av_convert_420`'s documentation, written out again: B, G, R, A of one pixel.
    static func expected(_ y: UInt8, _ cb: UInt8, _ cr: UInt8, _ m: [Int32], _ offset: Int32) -> [UInt8] {
        let l = (Int32(y) - offset) * m[0] + (1 << 15)
        let (u, v) = (Int32(cb) - 128, Int32(cr) - 128)
        func clamp(_ value: Int32) -> UInt8 { UInt8(min(max(value, 0), 255)) }
        return [clamp((l + u * m[4]) >> 16), clamp((l - u * m[2] - v * m[3]) >> 16), clamp((l + v * m[1]) >> 16), 255]
    }

    /// Every (Y, Cb, Cr): 64 frames of 512 × 512, chroma sample (i, j) = (Cb i, Cr j), the four pixels of its
    /// block Y = 4k … 4k + 3 in frame k. The SSE2 path equals the plain one byte for byte, with limited-range
    /// BT.709 and full-range BT.601 factors (every matrix: the next test).
    @Test("SSE2 and plain C agree on every Y, Cb, Cr")
    func everyTriple() throws {
        // Whole-array copies and one memcmp: a debug build would otherwise visit the 16 MB byte by byte.
        func repeated(_ part: [UInt8], _ count: Int) -> [UInt8] {
            var whole: [UInt8] = []
            whole.reserveCapacity(part.count * count)
            for _ in 0..<count { whole.append(contentsOf: part) }
            return whole
        }
        func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
            a.count == b.count
                && a.withUnsafeBytes { x in
                    b.withUnsafeBytes { y in
                        guard let first = x.baseAddress, let second = y.baseAddress else { return true }
                        return memcmp(first, second, x.count) == 0
                    }
                }
        }
        let cb = (0..<256 * 256).map { UInt8(truncatingIfNeeded: $0) }
        let cr = (0..<256 * 256).map { UInt8($0 / 256) }
        for k in 0..<64 {
            let base = UInt8(4 * k)
            let blockRows = repeated([base, base + 1], 256) + repeated([base + 2, base + 3], 256)
            let frame = Frame(width: 512, height: 512, planes: [repeated(blockRows, 256), cb, cr])
            for entry in Self.matrices where entry.name == "709 limited" || entry.name == "601 full" {
                let fast = frame.convert(entry.matrix, offset: entry.offset, simd: true)
                let plain = frame.convert(entry.matrix, offset: entry.offset, simd: false)
                guard !equal(fast, plain) else { continue }
                let at = try #require(fast.indices.first { fast[$0] != plain[$0] })
                Issue.record("\(entry.name), frame \(k): first difference at byte \(at): \(fast[at]) vs \(plain[at])")
                return
            }
        }
    }

    /// Odd sizes (a row's tail after the last 8 pixels, a last row without a partner) and pseudo-random samples:
    /// both paths give the formula's bytes.
    @Test(
        "both paths follow the formula, odd sizes included", arguments: [(517, 3), (8, 2), (15, 5), (1, 1), (64, 33)])
    func formula(_ width: Int, _ height: Int) throws {
        var seed: UInt32 = 29
        func next() -> UInt8 {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: seed >> 24)
        }
        let luma = (0..<(width * height)).map { _ in next() }
        let cw = (width + 1) / 2
        let cbs = (0..<(cw * ((height + 1) / 2))).map { _ in next() }
        let crs = (0..<(cw * ((height + 1) / 2))).map { _ in next() }
        let frame = Frame(
            width: width, height: height, luma: { x, y in luma[y * width + x] }, cb: { x, y in cbs[y * cw + x] },
            cr: { x, y in crs[y * cw + x] })
        for entry in Self.matrices {
            var expected: [UInt8] = []
            for y in 0..<height {
                for x in 0..<width {
                    let sample = (y / 2) * cw + x / 2
                    expected += Self.expected(luma[y * width + x], cbs[sample], crs[sample], entry.matrix, entry.offset)
                }
            }
            #expect(frame.convert(entry.matrix, offset: entry.offset, simd: true) == expected, "\(entry.name)")
            #expect(frame.convert(entry.matrix, offset: entry.offset, simd: false) == expected, "\(entry.name)")
        }
    }
}
