/// An H.264 level: the decoder capability a stream declares, from ITU-T H.264 Table A-1.
/// Hardware decoders refuse or mis-decode streams above their level, so the alpha-packed preset
/// declares the lowest level its frames fit instead of x264's guess.
package struct H264Level: Sendable, Equatable {
    /// `4.2` is written `4.2` to x264 and read back by ffprobe as `42`.
    package var name: String
    /// Macroblocks (16 × 16 pixels) per second.
    var maxMacroblockRate: Int
    /// Macroblocks per frame.
    var maxFrameSize: Int
    /// Macroblocks the decoded picture buffer holds.
    var maxBufferedMacroblocks: Int

    /// Table A-1, levels 3 to 5.2 (lower levels hold less than a 720×576 frame).
    static let table: [H264Level] = [
        H264Level(name: "3.0", maxMacroblockRate: 40_500, maxFrameSize: 1_620, maxBufferedMacroblocks: 8_100),
        H264Level(name: "3.1", maxMacroblockRate: 108_000, maxFrameSize: 3_600, maxBufferedMacroblocks: 18_000),
        H264Level(name: "3.2", maxMacroblockRate: 216_000, maxFrameSize: 5_120, maxBufferedMacroblocks: 20_480),
        H264Level(name: "4.0", maxMacroblockRate: 245_760, maxFrameSize: 8_192, maxBufferedMacroblocks: 32_768),
        H264Level(name: "4.1", maxMacroblockRate: 245_760, maxFrameSize: 8_192, maxBufferedMacroblocks: 32_768),
        H264Level(name: "4.2", maxMacroblockRate: 522_240, maxFrameSize: 8_704, maxBufferedMacroblocks: 34_816),
        H264Level(name: "5.0", maxMacroblockRate: 589_824, maxFrameSize: 22_080, maxBufferedMacroblocks: 110_400),
        H264Level(name: "5.1", maxMacroblockRate: 983_040, maxFrameSize: 36_864, maxBufferedMacroblocks: 184_320),
        H264Level(name: "5.2", maxMacroblockRate: 2_073_600, maxFrameSize: 36_864, maxBufferedMacroblocks: 184_320),
    ]

    /// Reference frames x264's `medium` preset keeps; the picture buffer must hold them.
    static let referenceFrames = 3

    /// The lowest level that decodes `width × height` frames at `rate`; nil above level 5.2.
    package static func lowest(width: Int, height: Int, rate: Double) -> H264Level? {
        let columns = (width + 15) / 16
        let rows = (height + 15) / 16
        let frameSize = columns * rows
        return table.first { level in
            // Neither side may exceed √(8 · MaxFS) macroblocks (A.3.1, item f).
            let longestSide = Int((8 * Double(level.maxFrameSize)).squareRoot())
            return frameSize <= level.maxFrameSize && columns <= longestSide && rows <= longestSide
                && Double(frameSize) * rate <= Double(level.maxMacroblockRate)
                && frameSize * referenceFrames <= level.maxBufferedMacroblocks
        }
    }
}
