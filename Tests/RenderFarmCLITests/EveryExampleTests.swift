import Foundation
import Testing

@testable import RenderFarmCLI

/// Every example runs as written: each `examples:` line of every command's `--help`, and each
/// `renderfarm …` line of the ```sh blocks of the README and the DocC articles, run by bash in a scratch
/// folder holding a copy of `jobs/` (and whatever else the example needs, made there first), with the
/// built `renderfarm` first on `PATH`. Each must exit 0, the status the help and articles document for
/// success.
@Suite("Every example runs")
struct EveryExampleTests {
    struct Example: Sendable, CustomTestStringConvertible {
        /// `render --help`, `README.md`, `RunningOnACluster.md`.
        var source: String
        var line: String
        var testDescription: String { "\(source): \(line)" }
    }

    /// Examples that cannot run here, by line, with the reason.
    static let skipped: [String: String] = [
        "renderfarm submit jobs/live-hearts.json --slurm --tasks 8 --out /shared/renders/live-hearts":
            "needs a Slurm cluster (make slurm-test)",
        "renderfarm submit jobs/live-hearts.json --slurm --tasks 8 --max-running 4 --partition render "
            + "--time 30:00 --cpus-per-task 4 --out /shared/renders/live-hearts":
            "needs a Slurm cluster (make slurm-test)",
        "renderfarm studio jobs/live-hearts.json": "serves until stopped, for a browser (make studio-test)",
        "renderfarm render jobs/live-hearts.json --frames 0-9 --isolate --sandbox require   # every protection, or exit 69":
            "exits 69 on a kernel without every layer of the sandbox (SandboxTests.require checks both kinds)",
        "renderfarm studio jobs/live-hearts.json --root . --port 8090":
            "serves until stopped, for a browser (make studio-test)",
        "renderfarm plugin check ./build/librenderfarm-sparkle.so --params params.json --frames all":
            "needs a plugin built from a scaffold against an installed SDK (make sdk-test)",
        "renderfarm plugin check ./librenderfarm-sparkle.so     # or an installed plugin's id":
            "needs a plugin built from a scaffold against an installed SDK (make sdk-test)",
    ]

    /// A render of frames 0-9 of live-hearts into its output.dir, jobs/out/live-hearts: a complete folder.
    static let renderedLiveHearts = "renderfarm render jobs/live-hearts.json --frames 0-9 --scale 0.25 --progress none"

    /// The C example data-dots built from the repository as WritingAPlugin builds it from an installed SDK: the
    /// header where `#include <renderfarm/renderfarm_plugin.h>` finds it, the companion library compiled in.
    static let dataDotsBuilt: String = {
        let root = Binary.packageRoot.path
        return "cp '\(root)'/plugins/examples/c/data-dots.* . && mkdir -p include/renderfarm && "
            + "cp '\(root)/Sources/RenderFarmPluginABI/include/renderfarm_plugin.h' include/renderfarm/ && "
            + "cc -std=c99 -Wall -Wextra -Werror -pedantic -shared -fPIC -o librenderfarm-example-data-dots.so "
            + "data-dots.c '\(root)/Sources/RenderFarmPluginKit/plugin_kit.c' -Iinclude -Iinclude/renderfarm $(pkg-config --cflags --libs cairo) -lm"
    }()

    /// What an example needs in the scratch folder besides `jobs/`, made by bash before it runs.
    static let setup: [String: String] = [
        "renderfarm plugin check ./librenderfarm-example-data-dots.so --params '{\"file\": \"data-dots.csv\"}'":
            dataDotsBuilt,
        "renderfarm render data-dots.json --plugin-path .": dataDotsBuilt,
        "renderfarm compare out/frame_00120.png Tests/References/live-hearts/frame_00120.png":
            // The references are rendered at scale 0.5 (make ci-render).
            "renderfarm render jobs/live-hearts.json --frames 120 --scale 0.5 --out out --progress none",
        "renderfarm man-page --article my-notes.md --name my-notes --section 7":
            "printf '# My notes\\n\\nWhat I keep.\\n\\n## Overview\\n\\nSee <doc:ComposingLayers>.\\n' > my-notes.md",
        "renderfarm compare a.png b.png --max-pixels 0 --diff-image diff.png":
            "cp Tests/References/live-hearts/frame_00120.png a.png && cp a.png b.png",
        "renderfarm encode jobs/out/live-hearts": renderedLiveHearts,
        "renderfarm mix jobs/out/stream-replay -o part.wav":
            "renderfarm render jobs/stream-replay.json --frames 0-299:15 --scale 0.25 --progress none",
        "renderfarm encode jobs/out/live-hearts -o overlay.webm": renderedLiveHearts,
        "renderfarm encode out/gift-deliverables -o 'videos/{{variant}}.{{format}}'":
            "renderfarm render jobs/gift-deliverables.json --frames 0-9 --scale 0.25 --out out --progress none",
        "renderfarm export-otio jobs/out/live-hearts": renderedLiveHearts,
        "renderfarm export-otio jobs/out/live-hearts -o edit/live-hearts.otio --absolute-urls": renderedLiveHearts,
        "renderfarm preview jobs/out/live-hearts -o sheet.png --columns 6": renderedLiveHearts,
        "renderfarm status jobs/out/live-hearts --watch": renderedLiveHearts,
        "renderfarm status jobs/out/live-hearts jobs/out/streamer-badges --json":
            renderedLiveHearts + " && renderfarm render jobs/streamer-badges.json --frames 0-9 --progress none",
        "renderfarm merge renders/live-hearts":
            "for k in 0 1; do renderfarm render jobs/live-hearts.json --frames 0-9 --scale 0.25 "
            + "--out renders/live-hearts --shard $k/2 --progress none || exit; done",
        "renderfarm unpack-alpha gift-alpha.mp4 -o frames/":
            renderedLiveHearts + " && renderfarm encode jobs/out/live-hearts --preset alpha-packed -o gift-alpha.mp4",
        "renderfarm unpack-alpha gift-alpha.mp4 -o frames/ --progress plain":
            renderedLiveHearts + " && renderfarm encode jobs/out/live-hearts --preset alpha-packed -o gift-alpha.mp4",
        "renderfarm plugins --json --plugin-path ./my-plugins": "mkdir my-plugins",
        // RunningOnACluster, GNU parallel: the job, and the shards `parallel` would have rendered.
        "renderfarm prepare job.json --out out/job     # physics checkpoints, so late shards start at once":
            "cp jobs/bounce.json job.json",
        "renderfarm merge out/job":
            "cp jobs/bounce.json job.json && for k in $(seq 0 7); do renderfarm render job.json --out out/job "
            + "--shard $k/8 --frames 0-15 --scale 0.25 --progress none || exit; done",
    ]

    /// Examples that take too long whole (480 full-size frames, encoded): run with what is added here.
    static let reduced: [String: String] = [
        // 480 frames at 750×1334 px: frame 0 shows the same (a render, its folder and manifest).
        "renderfarm render jobs/live-hearts.json": " --frames 0",
        // Six variants' videos: ten frames each, at a quarter of their size.
        "renderfarm render jobs/gift-deliverables.json --video 'videos/{{variant}}.{{format}}'":
            " --frames 0-9 --scale 0.25",
    ]

    /// The `examples:` of every command, the README's and the articles' ```sh lines that run renderfarm.
    static let examples: [Example] = {
        let commands = (RenderFarmCLI.commands + RenderFarmCLI.hiddenCommands).flatMap { command in
            command.spec.examples.map { Example(source: "\(command.spec.name) --help", line: $0) }
        }
        let root = Binary.packageRoot
        let articles = ["Sources/RenderFarm/RenderFarm.docc", "Sources/EffectKit/EffectKit.docc"].flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? [])
                .filter { $0.hasSuffix(".md") }.sorted().map { "\(folder)/\($0)" }
        }
        let documents = (["README.md"] + articles).flatMap { path -> [Example] in
            let text = (try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)) ?? ""
            return shellLines(text).filter { $0.hasPrefix("renderfarm ") }.map {
                Example(source: (path as NSString).lastPathComponent, line: $0)
            }
        }
        return commands + documents
    }()

    /// The lines of the ```sh blocks of `markdown`, with `\`-continued lines joined.
    static func shellLines(_ markdown: String) -> [String] {
        var lines: [String] = []
        var inBlock = false
        var pending = ""
        for raw in markdown.components(separatedBy: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") {
                inBlock = !inBlock && line == "```sh"
                continue
            }
            guard inBlock else { continue }
            if line.hasSuffix("\\") {
                pending += line.dropLast().trimmingCharacters(in: .whitespaces) + " "
                continue
            }
            lines.append(pending + line)
            pending = ""
        }
        return lines
    }

    @Test("the examples are found: every command's, and the articles' sh blocks")
    func found() {
        let sources = Set(Self.examples.map(\.source))
        for source in ["render --help", "status --help", "plugin check --help", "RunningOnACluster.md"] {
            #expect(sources.contains(source), "no examples from \(source)")
        }
        #expect(Self.examples.count >= 40, "\(Self.examples.count) examples")
        let lines = Set(Self.examples.map(\.line))
        for line in Array(Self.skipped.keys) + Array(Self.setup.keys) + Array(Self.reduced.keys) {
            #expect(lines.contains(line), "no example \(line) any more: update this test")
        }
    }

    @Test("runs as written, exit 0", arguments: examples.filter { skipped[$0.line] == nil })
    func runs(_ example: Example) throws {
        let scratch = try TemporaryFolder()
        let files = FileManager.default
        try files.copyItem(
            at: Binary.packageRoot.appendingPathComponent("jobs"), to: scratch.url.appendingPathComponent("jobs"))
        try files.createDirectory(
            at: scratch.url.appendingPathComponent("Tests/References"), withIntermediateDirectories: true)
        try files.copyItem(
            at: Binary.packageRoot.appendingPathComponent("Tests/References/live-hearts"),
            to: scratch.url.appendingPathComponent("Tests/References/live-hearts"))
        let environment = [
            "PATH=\(Binary.buildDirectory.path):\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")",
            "HOME=\(scratch.path)",
        ]
        if let setup = Self.setup[example.line] {
            let prepared = try Tools.run("/usr/bin/env", environment + ["/bin/bash", "-c", setup], in: scratch.url)
            try #require(prepared.status == 0, "setup `\(setup)`: \(prepared.stderr)")
        }
        let line = example.line + (Self.reduced[example.line] ?? "")
        let result = try Tools.run(
            "/usr/bin/env", environment + ["/bin/bash", "-c", line], in: scratch.url, timeout: 120)
        #expect(result.status == 0, "`\(line)` exited \(result.status):\n\(result.stderr)")
    }
}
