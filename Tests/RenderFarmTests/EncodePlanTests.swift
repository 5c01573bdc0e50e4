import Testing

@testable import RenderFarm

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

    @Test("mp4 is H.264 yuv420p with +faststart, padded to even and composited over the matte")
    func mp4() {
        let arguments = Self.arguments(.mp4)
        #expect(arguments.contains("libx264"))
        #expect(arguments.contains("yuv420p"))
        #expect(arguments.contains("+faststart"))
        let graph = arguments[(arguments.firstIndex(of: "-filter_complex") ?? 0) + 1]
        #expect(graph.contains("pad=ceil(iw/2)*2:ceil(ih/2)*2"))
        #expect(graph.contains("color=c=0x000000:s=751x1334:r=60"))
        #expect(graph.contains("overlay=shortest=1"))
        #expect(Self.plan(.mp4).outputSize == (752, 1334))
        #expect(Array(arguments.suffix(3)) == ["-f", "mp4", "out.bin"])
    }

    @Test("presets with alpha keep it: VP9 yuva420p, ProRes 4444, APNG")
    func alphaPresets() {
        #expect(Self.arguments(.webmAlpha).contains("yuva420p"))
        #expect(Self.arguments(.webmAlpha).contains("libvpx-vp9"))
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

    @Test("PNG and raw input differ only in the input options")
    func sameGraphForBothRoutes() {
        let png = Self.arguments(.mp4)
        let raw = Self.arguments(.mp4, input: .rawRGBA)
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
