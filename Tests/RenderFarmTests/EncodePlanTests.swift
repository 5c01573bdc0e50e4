import Testing

@testable import RenderFarm
@testable import RenderFarmMedia
@testable import RenderFarmOutput

@Suite("ffmpeg command lines per preset")
struct EncodePlanTests {
    static func plan(_ preset: EncodePreset, rate: Double = 60, background: String = "#00000000", width: Int = 751)
        -> EncodePlan
    {
        EncodePlan(
            preset: preset, crf: nil, width: width, height: 1334, rate: rate, background: background,
            frameCount: 30)
    }

    static func arguments(_ preset: EncodePreset, input: EncodeInput = .pattern("frame_%05d.png", start: 0))
        -> [String]
    {
        plan(preset).commands(input: input, output: "out.bin", palette: "palette.png").last?.arguments ?? []
    }

    @Test("mp4 is H.264 from yuv420p frames padded to even, BT.709 limited range, with +faststart; no filter graph")
    func mp4() {
        let arguments = Self.arguments(.mp4, input: .pipe(Self.plan(.mp4).pipeFormat))
        let text = arguments.joined(separator: " ")
        #expect(text.contains("-f rawvideo -pixel_format yuv420p -video_size 752x1334 -framerate 60 -i pipe:0"))
        #expect(text.contains("-c:v libx264 -preset medium -crf 18 -pix_fmt yuv420p -colorspace bt709"))
        #expect(text.contains("-color_range tv -movflags +faststart"))
        #expect(!arguments.contains("-filter_complex"))
        #expect(Self.plan(.mp4).outputSize == (752, 1334))
        #expect(Array(arguments.suffix(3)) == ["-f", "mp4", "out.bin"])
    }

    @Test("presets with alpha keep it: VP9 yuva420p, ProRes 4444, APNG")
    func alphaPresets() {
        let webm = Self.arguments(.webmAlpha, input: .pipe(Self.plan(.webmAlpha).pipeFormat))
        #expect(webm.joined(separator: " ").contains("-pixel_format yuva420p -video_size 752x1334"))
        #expect(webm.contains("libvpx-vp9") && !webm.contains("-filter_complex"))
        let prores = Self.arguments(.prores4444)
        #expect(prores.contains("prores_ks") && prores.contains("4444") && prores.contains("yuva444p10le"))
        #expect(EncodePreset.prores4444.fileExtension == "mov")
        #expect(Self.arguments(.apng).contains("apng"))
        #expect(
            EncodePreset.allCases.filter(\.keepsAlpha) == [.webmAlpha, .prores4444, .apng, .alphaPacked, .hevcAlpha])
        #expect(Self.plan(.prores4444).outputSize == (751, 1334))
    }

    @Test("gif makes its palette in a first pass and keeps every other frame above 50 fps")
    func gif() {
        let commands = Self.plan(.gif).commands(input: .glob("f_*.png"), output: "o.gif", palette: "p.png")
        #expect(commands.count == 2)
        #expect(commands[0].arguments.joined(separator: " ").contains("palettegen"))
        #expect(commands[0].arguments.last == "p.png")
        #expect(commands[1].arguments.joined(separator: " ").contains("paletteuse"))
        #expect(commands[1].arguments.joined(separator: " ").contains(",framestep=2"))
        #expect(Self.plan(.gif).outputFrameCount == 15)
        #expect(Self.plan(.gif).outputRate == 30)
        #expect(Self.plan(.gif, rate: 30).gifFrameStep == 1)
        #expect(!EncodePreset.gif.streams)
    }

    @Test(
        "the matte is the background without its alpha, or black when it is transparent",
        arguments: [
            ("#00000000", "0x000000"), ("#101018FF", "0x101018"), ("#10101880", "0x101018"),
            ("#FFFFFF00", "0x000000"),
        ])
    func matte(background: String, expected: String) {
        #expect(Self.plan(.mp4, background: background).matte == expected)
    }

    @Test("each preset's pipe format: YUV for the encoders RenderFarm converts for, RGBA for the graphs")
    func pipeFormats() {
        #expect(Self.plan(.mp4).pipeFormat == .yuv420p(bt709: true))
        #expect(Self.plan(.webmAlpha).pipeFormat == .yuva420p && Self.plan(.hevcAlpha).pipeFormat == .yuva420p)
        #expect(Self.plan(.alphaPacked).pipeFormat == .alphaPacked(Self.plan(.alphaPacked).alphaPackedLayout))
        #expect(Self.plan(.prores4444).pipeFormat == .yuva444p10 && Self.plan(.apng).pipeFormat == .rgba)
        for preset in EncodePreset.allCases {
            let plan = Self.plan(preset)
            #expect(plan.pipeFormat.isEncoderFormat == (plan.filterGraph == nil), "\(preset)")
        }
        #expect(PipeFormat.yuv420p(bt709: true).frameSize(width: 751, height: 1333) == (752, 1334))
        #expect(PipeFormat.rgba.frameSize(width: 751, height: 1333) == (751, 1333))
        #expect(PipeFormat.yuva444p10.frameSize(width: 751, height: 1333) == (751, 1333))
    }

    @Test("PNG and RGBA pipe input meet the same graph")
    func sameGraphForBothRoutes() {
        let png = Self.arguments(.apng)
        let raw = Self.arguments(.apng, input: .pipe(.rgba))
        let tail = { (arguments: [String]) in Array(arguments[(arguments.firstIndex(of: "-filter_complex") ?? 0)...]) }
        #expect(tail(png) == tail(raw))
        #expect(raw.contains("rawvideo") && raw.contains("rgba") && raw.contains("751x1334") && raw.contains("pipe:0"))
    }

    @Test("shell lines quote what a shell would interpret")
    func quoting() {
        let command = FFmpegCommand(arguments: ["-i", "frame_%05d.png", "-vf", "a=b;c", "it's"])
        #expect(command.shellLine == "ffmpeg -i frame_%05d.png -vf 'a=b;c' 'it'\\''s'")
    }
}

@Suite("ffmpeg -progress parsing")
struct FFmpegProgressParserTests {
    @Test("frame counts are reported per block, even when lines arrive in pieces")
    func blocks() {
        var parser = FFmpegProgressParser()
        let text = "frame=5\nfps=1.0\nprogress=continue\nframe=12\nfps=2\nprogress=end\n"
        var reported: [Int] = []
        for chunk in [text.prefix(9), text.dropFirst(9).prefix(20), text.dropFirst(29)] {
            reported += parser.consume(Array(chunk.utf8))
        }
        #expect(reported == [5, 12])
    }
}
