import Testing

@testable import RenderFarm
@testable import RenderFarmMedia

@Suite("alpha-packed (VAP) layout, config and level")
struct AlphaPackedLayoutTests {
    @Test(
        "regions as VapTool places them: beside unless below is shorter, 4-pixel gap, padded to 16",
        arguments: [
            // Portrait: beside is 754 wide, below 1338 high.
            (375, 667, FrameRegion(x: 379, y: 0, width: 375, height: 667), 768, 672),
            // Landscape: beside is 2672 wide, below 1504 high.
            (1334, 750, FrameRegion(x: 0, y: 754, width: 1334, height: 750), 1344, 1504),
            // Square: a tie stays beside, like VapTool (`hMaxLen > vMaxLen` picks below).
            (100, 100, FrameRegion(x: 104, y: 0, width: 100, height: 100), 208, 112),
        ])
    func layout(width: Int, height: Int, alpha: FrameRegion, videoWidth: Int, videoHeight: Int) {
        let layout = AlphaPackedLayout(width: width, height: height)
        #expect(layout.rgbFrame == FrameRegion(x: 0, y: 0, width: width, height: height))
        #expect(layout.alphaFrame == alpha)
        #expect(layout.videoWidth == videoWidth && layout.videoHeight == videoHeight)
        #expect(layout.isVertical == (alpha.y > 0))
        #expect(AlphaPackedLayout(width: 750, height: 1334).exceedsDeviceLimit == false)
        #expect(AlphaPackedLayout(width: 751, height: 1334).exceedsDeviceLimit)
    }

    @Test("the config is one line of JSON with VapTool's keys and order")
    func configText() throws {
        let config = VapConfig(layout: AlphaPackedLayout(width: 375, height: 667), frames: 120, fps: 30)
        #expect(
            config.json
                == "{\"info\":{\"v\":2,\"f\":120,\"w\":375,\"h\":667,\"fps\":30,\"videoW\":768,\"videoH\":672,"
                + "\"aFrame\":[379,0,375,667],\"rgbFrame\":[0,0,375,667],\"isVapx\":0,\"orien\":0}}")
        #expect(try VapConfig(parsing: Array(config.json.utf8), source: "x") == config)
    }

    @Test("configs from VAP's own tools parse: other key order, half-size alpha, extra lists")
    func vapToolConfig() throws {
        // The vapc box of VAP's Android demo.mp4 (an older layout with the colour at 4,4), plus a src list.
        let json = """
            {"info":{"v":2,"f":80,"w":736,"h":576,"videoW":752,"videoH":880,"orien":0,"fps":25,"isVapx":0,\
            "aFrame":[4,588,368,288],"rgbFrame":[4,4,736,576]},"src":[]}
            """
        let config = try VapConfig(parsing: Array(json.utf8), source: "demo.mp4")
        #expect(config.frames == 80 && config.fps == 25 && config.width == 736 && config.height == 576)
        #expect(config.alphaFrame == FrameRegion(x: 4, y: 588, width: 368, height: 288))
        #expect(config.rgbFrame == FrameRegion(x: 4, y: 4, width: 736, height: 576))
    }

    @Test(
        "configs the players would refuse are refused",
        arguments: [
            "{\"info\":{\"v\":1,\"f\":1,\"w\":2,\"h\":2,\"fps\":1,\"videoW\":8,\"videoH\":2,\"aFrame\":[4,0,2,2],"
                + "\"rgbFrame\":[0,0,2,2],\"isVapx\":0,\"orien\":0}}",
            "{\"info\":{\"v\":2,\"f\":1,\"w\":2,\"h\":2,\"videoW\":8,\"videoH\":2,\"aFrame\":[4,0,2,2],"
                + "\"rgbFrame\":[0,0,2,2],\"isVapx\":0,\"orien\":0}}",
            "{\"info\":{\"v\":2,\"f\":1,\"w\":2,\"h\":2,\"fps\":1,\"videoW\":8,\"videoH\":2,\"aFrame\":[7,0,2,2],"
                + "\"rgbFrame\":[0,0,2,2],\"isVapx\":0,\"orien\":0}}",
            "{\"info\":{\"v\":2,\"f\":1,\"w\":2,\"h\":2,\"fps\":1,\"videoW\":8,\"videoH\":2,\"aFrame\":[4,0,2],"
                + "\"rgbFrame\":[0,0,2,2],\"isVapx\":0,\"orien\":0}}",
            "{\"info\":{\"v\":2,\"f\":1,\"w\":100000,\"h\":100000,\"fps\":1,\"videoW\":8,\"videoH\":2,"
                + "\"aFrame\":[4,0,2,2],\"rgbFrame\":[0,0,2,2],\"isVapx\":0,\"orien\":0}}",
            "[]", "{\"info\":",
        ])
    func refusedConfig(json: String) {
        #expect(throws: EncodeError.self) { try VapConfig(parsing: Array(json.utf8), source: "x.mp4") }
    }

    @Test(
        "the H.264 level is the lowest that holds the frame, its rate and three reference frames",
        arguments: [
            (768, 672, 30.0, "3.1"), (1504, 1344, 30.0, "4.0"), (1504, 1344, 60.0, "4.2"), (2688, 1504, 30.0, "5.0"),
            (384, 336, 60.0, "3.0"),
        ])
    func level(width: Int, height: Int, rate: Double, expected: String) {
        #expect(H264Level.lowest(width: width, height: height, rate: rate)?.name == expected)
    }

    @Test("frames beyond level 5.2 have no level")
    func tooLarge() {
        #expect(H264Level.lowest(width: 4096, height: 4096, rate: 30) == nil)
        // 8704 × 64 is a small frame, but wider than any level's longest side (543 macroblocks).
        #expect(H264Level.lowest(width: 8704, height: 64, rate: 30) == nil)
    }

    @Test("the plan: packed yuv420p frames on the pipe, Main profile, no B-frames, BT.601 tags, the level")
    func plan() throws {
        let plan = EncodePlan(
            preset: .alphaPacked, crf: nil, width: 375, height: 667, rate: 30, background: "#000000FF", frameCount: 30)
        let arguments = plan.commands(input: .pipe(plan.pipeFormat), output: "o.mp4", palette: "").last?.arguments ?? []
        let text = arguments.joined(separator: " ")
        #expect(text.contains("-f rawvideo -pixel_format yuv420p -video_size 768x672 -framerate 30 -i pipe:0"))
        #expect(text.contains("-profile:v main -bf 0 -crf 18 -pix_fmt yuv420p -colorspace smpte170m"))
        #expect(text.contains("-level 3.1 -f mp4 o.mp4"))
        #expect(!arguments.contains("-filter_complex"))
        #expect(plan.outputSize == (768, 672))
        try plan.checkSupported()
        let fractional = EncodePlan(
            preset: .alphaPacked, crf: nil, width: 375, height: 667, rate: 29.97, background: "#000000FF",
            frameCount: 30)
        #expect(throws: EncodeError.self) { try fractional.checkSupported() }
        #expect(EncodePreset.alphaPacked.fileExtension == "mp4" && EncodePreset.hevcAlpha.fileExtension == "mov")
    }

    @Test("encoder help: the pixel formats after \"Supported pixel formats:\"")
    func pixelFormats() {
        let help = """
            Encoder libx265 [libx265 H.265 / HEVC]:
                General capabilities: dr1 delay threads
                Supported pixel formats: yuv420p yuva420p gray
            """
        #expect(FFmpeg.pixelFormats(inHelp: help) == ["yuv420p", "yuva420p", "gray"])
        #expect(FFmpeg.pixelFormats(inHelp: "Codec 'libx265' is not recognized by FFmpeg.") == [])
    }

    @Test("players sample regions bilinearly at texel centres, clamped to the frame")
    func taps() {
        let taps = PlayerCompositor.taps(10, 2, 4, 100)
        #expect(taps.map(\.first) == [9, 10, 10, 11])
        #expect(taps.map(\.weight) == [0.75, 0.25, 0.75, 0.25])
        #expect(PlayerCompositor.taps(0, 3, 3, 3).map(\.weight) == [0, 0, 0])
        #expect(PlayerCompositor.taps(0, 1, 2, 1).map(\.second) == [0, 0])
    }

    @Test("composing: colour from rgbFrame, alpha from aFrame's red, colour never above alpha")
    func compose() throws {
        // A 2 × 1 image: video 6 × 1, colour at x 0–1, alpha at x 4–5.
        let json =
            "{\"info\":{\"v\":2,\"f\":1,\"w\":2,\"h\":1,\"fps\":1,\"videoW\":6,\"videoH\":1,\"aFrame\":[4,0,2,1],"
            + "\"rgbFrame\":[0,0,2,1],\"isVapx\":0,\"orien\":0}}"
        let compositor = PlayerCompositor(config: try VapConfig(parsing: Array(json.utf8), source: "x"))
        let frame: [UInt8] = [100, 50, 25, 250, 10, 10, 0, 0, 0, 0, 0, 0, 200, 7, 7, 128, 9, 9]
        var pixels = [UInt32](repeating: 0, count: 2)
        compositor.compose(frame, into: &pixels)
        #expect(pixels[0] == 200 << 24 | 100 << 16 | 50 << 8 | 25)
        #expect(pixels[1] == 128 << 24 | 128 << 16 | 10 << 8 | 10)
    }
}
