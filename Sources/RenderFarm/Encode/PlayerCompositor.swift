/// What a VAP player draws from one decoded frame: colour from `rgbFrame`, alpha from the red
/// channel of `aFrame` (Android's `RenderConstant.FRAGMENT_SHADER`, iOS's `RGBAColor` in
/// `QGHWDShaders.metal`), each region stretched to the shown size `w × h` with bilinear sampling
/// that may read past a region's edge but not past the frame's (the players' linear texture
/// filtering, clamped to the texture). The result is premultiplied, as the players hand it to the
/// compositor.
struct PlayerCompositor {
    /// For one output column or row: the two texels to blend and the weight of the second.
    struct Tap {
        var first: Int
        var second: Int
        var weight: Double
    }

    let config: VapConfig
    private let colourColumns: [Tap]
    private let colourRows: [Tap]
    private let alphaColumns: [Tap]
    private let alphaRows: [Tap]

    init(config: VapConfig) {
        self.config = config
        colourColumns = Self.taps(config.rgbFrame.x, config.rgbFrame.width, config.width, config.videoWidth)
        colourRows = Self.taps(config.rgbFrame.y, config.rgbFrame.height, config.height, config.videoHeight)
        alphaColumns = Self.taps(config.alphaFrame.x, config.alphaFrame.width, config.width, config.videoWidth)
        alphaRows = Self.taps(config.alphaFrame.y, config.alphaFrame.height, config.height, config.videoHeight)
    }

    /// Texel centres for `count` output pixels spread over `length` texels from `origin`.
    static func taps(_ origin: Int, _ length: Int, _ count: Int, _ limit: Int) -> [Tap] {
        (0..<count).map { index in
            let position = Double(origin) + (Double(index) + 0.5) * Double(length) / Double(count) - 0.5
            let base = position.rounded(.down)
            let first = min(max(Int(base), 0), limit - 1)
            return Tap(first: first, second: min(first + 1, limit - 1), weight: position - base)
        }
    }

    /// Composes `frame` (packed RGB, `videoW × videoH`) into `pixels`: premultiplied ARGB32 words
    /// (`A<<24 | R<<16 | G<<8 | B`), `w × h`, the layout the PNG writer takes. Plain `while` loops over
    /// pointers: a debug build (the tests') runs ranges, array subscripts and nested closures through the
    /// generic standard library, which made this loop several percent of `make test`.
    func compose(_ frame: [UInt8], into pixels: inout [UInt32]) {
        let (stride, width, height) = (config.videoWidth * 3, config.width, config.height)
        frame.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { output in
                colourColumns.withUnsafeBufferPointer { colourColumns in
                    alphaColumns.withUnsafeBufferPointer { alphaColumns in
                        guard let texels = source.baseAddress, let words = output.baseAddress else { return }
                        var y = 0
                        while y < height {
                            let (alphaRow, colourRow) = (alphaRows[y], colourRows[y])
                            var x = 0
                            while x < width {
                                let (alphaColumn, colourColumn) = (alphaColumns[x], colourColumns[x])
                                let alpha = Self.sample(texels, stride, alphaColumn, alphaRow, 0)
                                // A premultiplied colour never exceeds its alpha; compression noise can.
                                let red = min(Self.sample(texels, stride, colourColumn, colourRow, 0), alpha)
                                let green = min(Self.sample(texels, stride, colourColumn, colourRow, 1), alpha)
                                let blue = min(Self.sample(texels, stride, colourColumn, colourRow, 2), alpha)
                                words[y * width + x] = alpha << 24 | red << 16 | green << 8 | blue
                                x += 1
                            }
                            y += 1
                        }
                    }
                }
            }
        }
    }

    /// One channel of the texels around (`column`, `row`), blended bilinearly; the texel itself at a texel centre.
    private static func sample(
        _ source: UnsafePointer<UInt8>, _ stride: Int, _ column: Tap, _ row: Tap, _ channel: Int
    ) -> UInt32 {
        if column.weight == 0 && row.weight == 0 {
            return UInt32(source[row.first * stride + column.first * 3 + channel])
        }
        func texel(_ x: Int, _ y: Int) -> Double { Double(source[y * stride + x * 3 + channel]) }
        let top =
            texel(column.first, row.first) * (1 - column.weight) + texel(column.second, row.first) * column.weight
        let bottom =
            texel(column.first, row.second) * (1 - column.weight) + texel(column.second, row.second) * column.weight
        return UInt32((top * (1 - row.weight) + bottom * row.weight).rounded())
    }
}
