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
    /// (`A<<24 | R<<16 | G<<8 | B`), `w × h`, the layout the PNG writer takes.
    func compose(_ frame: [UInt8], into pixels: inout [UInt32]) {
        let stride = config.videoWidth * 3
        frame.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { output in
                func sample(_ column: Tap, _ row: Tap, _ channel: Int) -> UInt32 {
                    if column.weight == 0 && row.weight == 0 {
                        return UInt32(source[row.first * stride + column.first * 3 + channel])
                    }
                    func texel(_ x: Int, _ y: Int) -> Double { Double(source[y * stride + x * 3 + channel]) }
                    let top =
                        texel(column.first, row.first) * (1 - column.weight)
                        + texel(column.second, row.first) * column.weight
                    let bottom =
                        texel(column.first, row.second) * (1 - column.weight)
                        + texel(column.second, row.second) * column.weight
                    return UInt32((top * (1 - row.weight) + bottom * row.weight).rounded())
                }
                for y in 0..<config.height {
                    for x in 0..<config.width {
                        let alpha = sample(alphaColumns[x], alphaRows[y], 0)
                        // A premultiplied colour never exceeds its alpha; compression noise can.
                        let red = min(sample(colourColumns[x], colourRows[y], 0), alpha)
                        let green = min(sample(colourColumns[x], colourRows[y], 1), alpha)
                        let blue = min(sample(colourColumns[x], colourRows[y], 2), alpha)
                        output[y * config.width + x] = alpha << 24 | red << 16 | green << 8 | blue
                    }
                }
            }
        }
    }
}
