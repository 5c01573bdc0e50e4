import Foundation
import RenderFarm
import Testing

@testable import RenderFarmCLI

/// Every command's help and usage errors, in process: unknown options, missing and unwanted values,
/// repeated options, the wrong count of arguments, and numbers out of range.
@Suite("Usage errors and help, in process")
struct UsageErrorTests {
    static let names = CLI.commands.map { $0.spec.name }

    static func command(_ name: String) -> (words: [String], spec: CommandSpec) {
        CLI.commands.first { $0.spec.name == name } ?? ([name], RenderCommand.spec)
    }

    /// Positional arguments the command accepts in number.
    static func positionals(_ spec: CommandSpec) -> [String] {
        Array(repeating: "x", count: spec.positionals.lowerBound)
    }

    @Test("--help, -h and help COMMAND print the command's help", arguments: names)
    func help(name: String) {
        let (words, spec) = Self.command(name)
        expectHelp(words, spec)
        #expect(spec.help.contains("USAGE: renderfarm \(name)"))
    }

    @Test("an unknown option is refused", arguments: names)
    func unknownOption(name: String) {
        let (words, spec) = Self.command(name)
        expectUsageError(
            words + Self.positionals(spec) + ["--qqqqqqqqqq"], "unknown option --qqqqqqqqqq", command: name)
    }

    @Test("an option without its value, a flag with one, and an option given twice are refused", arguments: names)
    func optionValues(name: String) {
        let (words, spec) = Self.command(name)
        let given = Self.positionals(spec)
        for option in spec.options {
            for spelling in option.names {
                guard let value = option.value else {
                    guard spelling.hasPrefix("--") else { continue }
                    expectUsageError(words + given + [spelling + "=1"], "\(spelling) takes no value", command: name)
                    continue
                }
                expectUsageError(words + given + [spelling], "\(spelling) needs a value (\(value))", command: name)
                guard !option.repeatable else { continue }
                expectUsageError(
                    words + given + [spelling, "1", spelling, "2"], "\(spelling) given more than once", command: name)
            }
        }
    }

    @Test("too few or too many arguments are refused with the usage line", arguments: names)
    func argumentCount(name: String) {
        let (words, spec) = Self.command(name)
        let range = spec.positionals
        if range.lowerBound > 0 {
            let expected = range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "at least \(range.lowerBound)"
            expectUsageError(
                words + Array(repeating: "x", count: range.lowerBound - 1),
                "missing argument (expected \(expected)); usage: renderfarm \(spec.usage)", command: name)
        }
        if range.upperBound < Int.max {
            expectUsageError(
                words + Array(repeating: "x", count: range.upperBound) + ["extra"],
                "unexpected argument \"extra\"; usage: renderfarm \(spec.usage)", command: name)
        }
    }

    @Test("render's usage line, spelt out")
    func renderMissingArgument() {
        let result = CLI.run(["render"])
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                "renderfarm: error: missing argument (expected at least 1); usage: renderfarm render JOB|DIR … [-j N] "
                    + "[--frames SET] [--shard K/N] [--shard-mode MODE] [--out DIR] [--output-root DIR] [--force] "),
            "\(result.stderr)")
    }

    @Test(
        "numbers, choices and combinations out of range are refused, naming what is allowed",
        arguments: [
            (["render", "x", "-j", "0"], "-j/--jobs expects an integer in 1…1024, got \"0\""),
            (["render", "x", "--jobs", "many"], "-j/--jobs expects an integer in 1…1024, got \"many\""),
            (["render", "x", "--scale", "9"], "--scale expects a number in (0, 8], got \"9\""),
            (["render", "x", "--shard", "3/3"], "--shard K/N needs 0 ≤ K < N (K is 0-based), got 3/3"),
            (["render", "x", "--shard", "half"], "--shard expects K/N (e.g. 0/4) or auto, got \"half\""),
            (
                ["render", "x", "--shard-mode", "odd"],
                "--shard-mode expects one of contiguous, interleaved, got \"odd\""
            ),
            (
                ["render", "x", "--progress", "loud"],
                "--progress expects one of auto, plain, json, openjd, none, got \"loud\""
            ),
            (["render", "x", "--frame-timeout", "5"], "--frame-timeout needs --isolate"),
            (
                ["render", "x", "--isolate", "--frame-timeout", "0"],
                "--frame-timeout expects seconds in (0, 86400], got \"0\""
            ),
            (
                ["render", "x", "--isolate", "--video", "x.mp4"],
                "--isolate renders PNG frames; it cannot be combined with --video"
            ),
            (["render", "x", "--preset", "mp4"], "--preset needs --video FILE (or use `renderfarm encode`)"),
            (["render", "x", "--verbose"], "--verbose needs --video FILE"),
            (
                ["render", "x", "--video", "x.mp4", "--shard", "0/2"],
                "--shard cannot be combined with --video (one job, one video file)"
            ),
            (
                ["render", "x", "--video", "x.mp4", "--force"],
                "--force cannot be combined with --video (it always renders every frame, and stops at the first "
                    + "frame that fails)"
            ),
            (["worker", "x", "--scale", "0"], "--scale expects a number in (0, 8], got \"0\""),
            (["trace", "x", "--items", "a,b"], "--items expects item ids like 0,3,7, got \"a,b\""),
            (["preview", "x"], "-o SHEET.png is required"),
            (["preview", "x", "-o", "sheet.jpg"], "-o sheet.jpg: a contact sheet is a PNG; name it .png"),
            (["preview", "x", "-o", "s.png", "--columns", "0"], "--columns expects an integer in 1…64, got \"0\""),
            (["preview", "x", "-o", "s.png", "--width", "10"], "--width expects an integer in 64…16384, got \"10\""),
            (["compare", "a", "b", "--max-diff", "256"], "--max-diff expects an integer in 0…255, got \"256\""),
            (
                ["compare", "a", "b", "--max-pixels", "-1"],
                "--max-pixels expects an integer in 0…2147483647, got \"-1\""
            ),
            (["compare", "a", "b", "--min-psnr", "x"], "--min-psnr expects a number of dB in 0…200, got \"x\""),
            (["encode", "x", "--crf", "99"], "--crf expects an integer in 0…51, got \"99\""),
            (
                ["encode", "x", "--preset", "apng", "--crf", "20"],
                "--crf applies to the mp4 and webm-alpha presets, not apng"
            ),
            (
                ["encode", "x", "--progress", "x"],
                "--progress expects one of auto, plain, json, openjd, none, got \"x\""
            ),
            (["submit", "x"], "submit needs one engine: --slurm, --openjd DIR or --kubernetes DIR"),
            (
                ["submit", "x", "--slurm", "--openjd", "b"],
                "submit needs one engine: --slurm, --openjd DIR or --kubernetes DIR"
            ),
            (["submit", "x", "--openjd", "b", "--partition", "p"], "--partition does not apply to --openjd"),
            (["submit", "x", "--openjd", "b", "--max-running", "2"], "--max-running does not apply to --openjd"),
            (["submit", "x", "--kubernetes", "k", "--wait", "--image", "i"], "--wait does not apply to --kubernetes"),
            (["submit", "x", "--slurm", "--image", "i"], "--image does not apply to --slurm"),
            (["submit", "x", "--kubernetes", "k"], "--kubernetes needs --image IMAGE: the image that has renderfarm"),
            (["submit", "x", "--slurm", "--tasks", "0"], "--tasks expects an integer in 1…100000, got \"0\""),
            (
                ["submit", "x", "--slurm", "--max-running", "0"],
                "--max-running expects an integer in 1…100000, got \"0\""
            ),
            (
                ["submit", "x", "--slurm", "--cpus-per-task", "0"],
                "--cpus-per-task expects an integer in 1…1024, got \"0\""
            ),
            (["submit", "x", "--slurm", "-j", "2000"], "-j/--jobs expects an integer in 1…1024, got \"2000\""),
            (["submit", "x", "--slurm", "--frame-timeout", "5"], "--frame-timeout needs --isolate"),
            (["unpack-alpha", "x"], "-o DIR is required (the folder for the PNG frames)"),
            (["studio", "--port", "70000"], "--port 70000 is not a port number (0-65535)"),
            (["plugin", "new", "x"], "--lang is required: c or swift"),
            (["plugin", "new", "x", "--lang", "go"], "--lang expects c or swift, got \"go\""),
            (["completion", "tcsh"], "unknown shell \"tcsh\" (expected bash, zsh or fish)"),
        ])
    func values(arguments: [String], message: String) {
        let (name, _) = RenderFarmCLI.groupedCommand(arguments)
        expectUsageError(arguments, message, command: name)
    }

    @Test("--preset names every preset when it is not one of them")
    func unknownPreset() {
        let presets = EncodePreset.allCases.map(\.rawValue).joined(separator: ", ")
        expectUsageError(
            ["encode", "x", "--preset", "avi"], "--preset expects one of \(presets), got \"avi\"", command: "encode")
    }

    @Test("a misspelt option gets a suggestion")
    func suggestion() {
        expectUsageError(
            ["render", "x.json", "--frmaes", "1"], "unknown option --frmaes (did you mean --frames?)", command: "render"
        )
    }
}
