/// A rectangle of a video frame in pixels, written in VAP's configs as `[x, y, w, h]`.
package struct FrameRegion: Sendable, Equatable, CustomStringConvertible {
    package var x: Int
    package var y: Int
    package var width: Int
    package var height: Int

    package init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// `[x,y,w,h]`, as VAP's configs write it.
    package var description: String { "[\(x),\(y),\(width),\(height)]" }
}

/// Where the colour and the alpha of each frame sit in an alpha-packed (VAP) video frame, chosen
/// the way Tencent's VapTool chooses it (`CommonArgTool.autoFillAndCheck`): colour at the top left,
/// the alpha region beside it (right) or under it (bottom), whichever gives the shorter longest
/// side, a gap between them, and the whole frame padded to multiples of 16.
package struct AlphaPackedLayout: Sendable, Equatable {
    /// Pixels between the two regions: VapTool's `MIN_GAP`, so that compression and the players'
    /// bilinear sampling never mix colour into alpha.
    package static let gap = 4
    /// Frame sizes are whole macroblocks: VapTool's `calSizeFill` pads both sides to 16.
    package static let alignment = 16
    /// Frames wider or taller than this decode badly (green frames) on some phones, VapTool warns.
    package static let deviceLimit = 1504

    /// The colour region: the frame as rendered, premultiplied (composited over black).
    package var rgbFrame: FrameRegion
    /// The alpha region: alpha as grey (R = G = B = alpha), the same size as the colour.
    package var alphaFrame: FrameRegion
    /// The encoded frame size, padding included.
    package var videoWidth: Int
    package var videoHeight: Int

    /// The layout for frames of `width × height` pixels (the "real" size VAP calls `w` and `h`).
    package init(width: Int, height: Int) {
        rgbFrame = FrameRegion(x: 0, y: 0, width: width, height: height)
        let side = max(width + Self.gap + width, height)
        let below = max(width, height + Self.gap + height)
        // VapTool's rule: beside unless below makes the longest side strictly shorter.
        let vertical = side > below
        alphaFrame =
            vertical
            ? FrameRegion(x: 0, y: height + Self.gap, width: width, height: height)
            : FrameRegion(x: width + Self.gap, y: 0, width: width, height: height)
        videoWidth = Self.aligned(vertical ? width : 2 * width + Self.gap)
        videoHeight = Self.aligned(vertical ? 2 * height + Self.gap : height)
    }

    /// Whether the alpha region is under the colour (`false`: to its right).
    package var isVertical: Bool { alphaFrame.y > 0 }

    /// Whether some phones may fail to decode frames this large (VapTool's 1504-pixel warning).
    package var exceedsDeviceLimit: Bool { videoWidth > Self.deviceLimit || videoHeight > Self.deviceLimit }

    /// `768x672 (colour [0,0,375,667], alpha [379,0,375,667])`, for manifests and messages.
    package var summary: String { "\(videoWidth)x\(videoHeight) (colour \(rgbFrame), alpha \(alphaFrame))" }

    private static func aligned(_ size: Int) -> Int { (size + alignment - 1) / alignment * alignment }
}
