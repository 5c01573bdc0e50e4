import RenderFarmMedia
import StrictJSON

/// VAP's playback config, the JSON carried in the MP4's `vapc` box: its `info` object, as
/// VapTool writes it (`AnimTool.createVapcJson`) and the players read it (Android `AnimConfig.parse`,
/// iOS `QGVAPConfigManager.parseConfigDictinary`, web `webgl-render-vap.ts`).
package struct VapConfig: Sendable, Equatable {
    /// The only version VAP's players accept (`AnimConfig.version`; other versions are refused).
    package static let supportedVersion = 2
    /// The largest side read from a config: beyond any H.264 level, and it bounds what unpacking allocates.
    static let maxSide = 16_384

    /// `v`.
    package var version: Int
    /// `f`: frames in the video.
    package var frames: Int
    /// `w`, `h`: the size the animation is shown at (the colour region's size).
    package var width: Int
    package var height: Int
    /// `fps`: whole frames per second (all players read an integer).
    package var fps: Int
    /// `videoW`, `videoH`: the encoded frame size.
    package var videoWidth: Int
    package var videoHeight: Int
    /// `aFrame`: the alpha region.
    package var alphaFrame: FrameRegion
    /// `rgbFrame`: the colour region.
    package var rgbFrame: FrameRegion
    /// `isVapx`: 1 for "fusion" animations with user images and text (`src`, `frame` lists).
    package var isVapx: Bool
    /// `orien`: 0 for any orientation, 1 portrait, 2 landscape.
    package var orientation: Int

    /// The config of a video with `frames` frames at `fps` in `layout`.
    package init(layout: AlphaPackedLayout, frames: Int, fps: Int) {
        version = Self.supportedVersion
        self.frames = frames
        width = layout.rgbFrame.width
        height = layout.rgbFrame.height
        self.fps = fps
        videoWidth = layout.videoWidth
        videoHeight = layout.videoHeight
        alphaFrame = layout.alphaFrame
        rgbFrame = layout.rgbFrame
        isVapx = false
        orientation = 0
    }

    /// The JSON text: one line, keys in VapTool's order.
    package var json: String {
        "{\"info\":{\"v\":\(version),\"f\":\(frames),\"w\":\(width),\"h\":\(height),\"fps\":\(fps),"
            + "\"videoW\":\(videoWidth),\"videoH\":\(videoHeight),\"aFrame\":\(alphaFrame),"
            + "\"rgbFrame\":\(rgbFrame),\"isVapx\":\(isVapx ? 1 : 0),\"orien\":\(orientation)}}"
    }

    /// Reads a config the way Android's player does: every `info` field is required, `v` must be
    /// 2, and both regions must lie inside the video frame. `source` names it in errors.
    package init(parsing bytes: some Collection<UInt8>, source: String) throws(EncodeError) {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw .notAlphaPacked(path: source, reason: "its VAP config is not JSON: \(error)")
        }
        guard let info = root.objectValue?["info"]?.objectValue else {
            throw .notAlphaPacked(path: source, reason: "its VAP config has no \"info\" object")
        }
        func integer(_ key: String) throws(EncodeError) -> Int {
            guard let value = info[key]?.doubleValue, value == value.rounded(), abs(value) < 1e9 else {
                throw .notAlphaPacked(path: source, reason: "info.\(key) is missing or not a whole number")
            }
            return Int(value)
        }
        func region(_ key: String) throws(EncodeError) -> FrameRegion {
            let values = info[key]?.arrayValue?.compactMap(\.doubleValue) ?? []
            guard values.count == 4, values.allSatisfy({ $0 == $0.rounded() && $0 >= 0 && $0 < 1e6 }) else {
                throw .notAlphaPacked(path: source, reason: "info.\(key) is not [x, y, w, h] in whole pixels")
            }
            return FrameRegion(x: Int(values[0]), y: Int(values[1]), width: Int(values[2]), height: Int(values[3]))
        }
        version = try integer("v")
        guard version == Self.supportedVersion else {
            throw .notAlphaPacked(
                path: source, reason: "info.v is \(version); VAP's players only play version \(Self.supportedVersion)")
        }
        frames = try integer("f")
        width = try integer("w")
        height = try integer("h")
        fps = try integer("fps")
        videoWidth = try integer("videoW")
        videoHeight = try integer("videoH")
        orientation = try integer("orien")
        isVapx = try integer("isVapx") == 1
        alphaFrame = try region("aFrame")
        rgbFrame = try region("rgbFrame")
        guard [width, height, videoWidth, videoHeight].allSatisfy({ (1...Self.maxSide).contains($0) }) else {
            throw .notAlphaPacked(path: source, reason: "info.w, h, videoW and videoH must be in 1…\(Self.maxSide)")
        }
        for (key, rect) in [("aFrame", alphaFrame), ("rgbFrame", rgbFrame)]
        where rect.width == 0 || rect.height == 0 || rect.x + rect.width > videoWidth
            || rect.y + rect.height > videoHeight
        {
            throw .notAlphaPacked(
                path: source, reason: "info.\(key) \(rect) is empty or outside the \(videoWidth)x\(videoHeight) frame")
        }
    }
}
