import Foundation
import RenderFarm
import RenderFarmStudio
import Testing

@testable import RenderFarmCLI

/// The command lines renderfarm writes for other processes (the Slurm scripts', OpenJD steps' and Kubernetes Jobs'
/// `prepare`, `render` and `merge`, the workers of `render --isolate`, a C plugin project's `make test`) go back
/// through the CLI's own parser and give what was asked: an option renamed, left out of the command that receives
/// it, or spelt by hand fails here instead of on a cluster.
@Suite("Generated command lines")
struct GeneratedCommandLineTests {
    /// Every setting a submission can pass on.
    static let everything = ClusterCommandLines(
        jobFiles: ["/shared/jobs/live hearts.json", "/shared/jobs/burst.json"], output: "/shared/out",
        outputRoot: "/shared", jobFolders: ["/shared/out/live-hearts", "/shared/out/burst"],
        pluginPath: ["/opt/renderfarm/plugins", "/shared/plug ins"], frames: "0-99:2", variants: "alice,3",
        concurrency: 3, interleaved: true, isolate: true, frameTimeout: 2.5, sandbox: .require)

    /// Only what every submission has.
    static let defaults = ClusterCommandLines(
        jobFiles: ["/shared/jobs/burst.json"], output: "/shared/out", jobFolders: ["/shared/out"],
        pluginPath: ["/opt/renderfarm/plugins"], prepares: false)

    /// What bash hands to renderfarm when it runs each script, as task 1 of 3 on a node with 2 CPUs.
    static func arguments(_ commands: ClusterCommandLines) throws -> (
        prepare: [String]?, render: [String], merge: [String]
    ) {
        let folder = try TemporaryFolder()
        // A stand-in for renderfarm that records its arguments, NUL-separated.
        let executable = try folder.write("#!/bin/sh\nprintf '%s\\0' \"$@\" > \"$ARGS_FILE\"\n", to: "renderfarm")
        #expect(chmod(executable, 0o755) == 0)
        let scripts = try SlurmScripts(
            commands.request(executable: executable, scriptFolder: "/shared/out/slurm", name: "job", tasks: 3))
        func run(_ script: String) throws -> [String] {
            let file = try folder.write(script, to: "script.sh")
            let argsFile = folder.url.appendingPathComponent("args").path
            let run = try Tools.run(
                "/usr/bin/env",
                ["ARGS_FILE=\(argsFile)", "SLURM_ARRAY_TASK_ID=1", "SLURM_CPUS_ON_NODE=2", "/bin/bash", file])
            #expect(run.status == 0, "\(run.stderr)\n\(script)")
            let recorded = try String(contentsOfFile: argsFile, encoding: .utf8)
            return recorded.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
        return (try scripts.prepare.map(run), try run(scripts.render), try run(scripts.merge))
    }

    /// `arguments` through the parser of the command they name, as `renderfarm` parses them (with no environment:
    /// the scripts' commands spell out their settings).
    static func parsed(_ arguments: [String]) throws -> ParsedArguments {
        let name = try #require(arguments.first)
        let command = try #require(
            (RenderFarmCLI.commands + RenderFarmCLI.hiddenCommands).first { $0.spec.name == name }, "\(name)")
        return try ParsedArguments(Array(arguments.dropFirst()), spec: command.spec, environment: [:])
    }

    /// `render` as task 1 of 3 has every setting of `commands` (`everything`).
    static func expectEverything(_ render: RenderCommand, _ commands: ClusterCommandLines, progress: ProgressMode) {
        #expect(render.arguments.positionals == commands.jobFiles)
        #expect(render.arguments[RenderCommand.out] == commands.output)
        #expect(render.arguments[RenderCommand.outputRoot] == commands.outputRoot)
        #expect(render.arguments[RenderCommand.frames] == commands.frames)
        #expect(render.arguments.all(CommonOptions.pluginPath) == commands.pluginPath)
        #expect(render.arguments[CommonOptions.variants] == commands.variants)
        #expect(render.shard == .part(index: 1, count: 3, interleaved: true))
        #expect(render.concurrency == 3)
        #expect(render.progress == progress)
        #expect(render.isolation?.frameTimeout == 2.5)
        #expect(render.sandbox == .require)
    }

    @Test("each render task's command line parses as render, with every setting of the submission")
    func render() throws {
        let commands = Self.everything
        let arguments = try Self.arguments(commands).render
        #expect(arguments.first == RenderCommand.spec.name)
        let render = try RenderCommand(Self.parsed(arguments))
        Self.expectEverything(render, commands, progress: .plain)

        // The workers of that render prepare the same jobs.
        let worker = try WorkerCommand(Self.parsed(try #require(render.isolation?.arguments)))
        #expect(worker.arguments.positionals == commands.jobFiles)
        #expect(worker.arguments[RenderCommand.out] == commands.output)
        #expect(worker.arguments[RenderCommand.outputRoot] == commands.outputRoot)
        #expect(worker.arguments[RenderCommand.frames] == commands.frames)
        #expect(worker.arguments.all(CommonOptions.pluginPath) == commands.pluginPath)
        #expect(worker.arguments[CommonOptions.variants] == commands.variants)
        #expect(worker.sandbox == .require)
    }

    @Test("without settings, a task renders its contiguous shard with the CPUs Slurm gave it, in process")
    func renderDefaults() throws {
        let (prepare, arguments, _) = try Self.arguments(Self.defaults)
        #expect(prepare == nil)
        let render = try RenderCommand(Self.parsed(arguments))
        #expect(render.shard == .part(index: 1, count: 3, interleaved: false))
        #expect(render.concurrency == 2)
        #expect(render.isolation == nil)
        #expect(render.arguments[RenderCommand.frames] == nil && render.arguments[CommonOptions.variants] == nil)
    }

    @Test("render --isolate without --frame-timeout gives each frame 300 s; a task's render gets the same default")
    func defaultFrameTimeout() throws {
        let render = try RenderCommand(Self.parsed(["render", "job.json", "--isolate"]))
        #expect(render.isolation?.frameTimeout == Isolation.defaultFrameTimeout)
        #expect(Isolation.defaultFrameTimeout == 300)
        var commands = Self.defaults
        commands.isolate = true
        let task = try RenderCommand(Self.parsed(try Self.arguments(commands).render))
        #expect(task.isolation?.frameTimeout == 300)
    }

    @Test("the prepare job's command line parses as prepare, and the merge job's as merge of every job's folder")
    func prepareAndMerge() throws {
        let commands = Self.everything
        let (prepareArguments, _, mergeArguments) = try Self.arguments(commands)
        let prepare = try PrepareCommand(Self.parsed(try #require(prepareArguments)))
        #expect(prepareArguments?.first == PrepareCommand.spec.name)
        #expect(prepare.arguments.positionals == commands.jobFiles)
        #expect(prepare.arguments[RenderCommand.out] == commands.output)
        #expect(prepare.arguments[RenderCommand.outputRoot] == commands.outputRoot)
        #expect(prepare.arguments[PrepareCommand.frames] == commands.frames)
        #expect(prepare.arguments.all(CommonOptions.pluginPath) == commands.pluginPath)
        #expect(prepare.arguments[CommonOptions.variants] == commands.variants)

        #expect(mergeArguments.first == MergeCommand.spec.name)
        let merge = try MergeCommand(Self.parsed(mergeArguments))
        #expect(merge.arguments.positionals == commands.jobFolders)
    }

    /// The arguments of each OpenJD step as the runtime hands them over, as task 1 of 3: every `{{Param.X}}` and
    /// `{{Task.Param.Shard}}` replaced by its value (the job files and output folder of the submission).
    static func openJDArguments(_ commands: ClusterCommandLines) throws -> [String: [String]] {
        var commands = commands
        commands.schedulerGivesCPUs = false
        commands.progress = .openjd
        let bundle = try OpenJDBundle(
            OpenJDBundle.Request(
                executable: "/opt/renderfarm/bin/renderfarm", name: "job", tasks: 3, cpus: commands.concurrency,
                jobFiles: commands.jobFiles, outputFolder: commands.outputFolder, prepare: commands.prepare,
                render: commands.render, merge: commands.merge))
        let values = bundle.pathValues.map { ("{{Param.\($0.name)}}", $0.value) } + [("{{Task.Param.Shard}}", "1")]
        var steps: [String: [String]] = [:]
        for (step, arguments) in bundle.arguments {
            steps[step] = arguments.map { word in
                values.reduce(word) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
            }
            for argument in arguments { #expect(bundle.template.contains("- \(YAMLValue.quoted(argument))\n")) }
        }
        return steps
    }

    /// The arguments of each Kubernetes Job's container as the kubelet hands them over, as completion index 1.
    static func kubernetesArguments(_ commands: ClusterCommandLines) throws -> [String: [String]] {
        var commands = commands
        commands.schedulerGivesCPUs = false
        let manifests = try KubernetesManifests(
            KubernetesManifests.Request(
                executable: "renderfarm", name: "job", image: "renderfarm:1", tasks: 3, maxRunning: nil,
                cpus: commands.concurrency, volumeClaim: "shared", mountPath: "/shared", prepare: commands.prepare,
                render: commands.render, merge: commands.merge))
        var jobs: [String: [String]] = [:]
        for (job, arguments) in manifests.arguments {
            // Kubernetes' expansion: $(VAR) is the variable, $$ a $.
            let expanded = arguments.map {
                $0.replacingOccurrences(of: "$(\(KubernetesManifests.shardVariable))", with: "1")
                    .replacingOccurrences(of: "$$", with: "$")
            }
            jobs[String(job.split(separator: "-").last ?? "")] = expanded
        }
        return jobs
    }

    @Test(
        "each OpenJD step and Kubernetes Job parses as the command it runs, with every setting of the submission",
        arguments: [false, true])
    func otherEngines(kubernetes: Bool) throws {
        let commands = Self.everything
        let steps = try kubernetes ? Self.kubernetesArguments(commands) : Self.openJDArguments(commands)
        let render = try RenderCommand(Self.parsed(try #require(steps[kubernetes ? "render" : "Render"])))
        Self.expectEverything(render, commands, progress: kubernetes ? .plain : .openjd)

        let prepare = try PrepareCommand(Self.parsed(try #require(steps[kubernetes ? "prepare" : "Prepare"])))
        #expect(prepare.arguments.positionals == commands.jobFiles)
        #expect(prepare.arguments[RenderCommand.out] == commands.output)
        #expect(prepare.arguments[PrepareCommand.frames] == commands.frames)
        let merge = try MergeCommand(Self.parsed(try #require(steps[kubernetes ? "merge" : "Merge"])))
        #expect(merge.arguments.positionals == commands.jobFolders)

        // Without -j, no engine but Slurm says a task's CPUs: the render keeps its own default.
        let defaults = try kubernetes ? Self.kubernetesArguments(Self.defaults) : Self.openJDArguments(Self.defaults)
        #expect(defaults[kubernetes ? "prepare" : "Prepare"] == nil)
        let plain = try RenderCommand(Self.parsed(try #require(defaults[kubernetes ? "render" : "Render"])))
        #expect(plain.shard == .part(index: 1, count: 3, interleaved: false))
        #expect(plain.arguments[RenderCommand.jobs] == nil)
        #expect(!(defaults[kubernetes ? "render" : "Render"] ?? []).contains(RenderCommand.jobs.spec.commandLineName))
    }

    @Test("the render script spells each option as the CLI's table does")
    func spelling() throws {
        let arguments = try Self.arguments(Self.everything).render
        let options: [any OptionKey] = [
            RenderCommand.out, RenderCommand.outputRoot, RenderCommand.frames, CommonOptions.pluginPath,
            CommonOptions.variants, RenderCommand.shard, CommonOptions.shardMode, RenderCommand.jobs,
            RenderCommand.isolate, RenderCommand.frameTimeout, RenderCommand.sandbox, CommonOptions.progress,
        ]
        for option in options {
            #expect(arguments.contains(option.spec.commandLineName), "\(option.spec.primaryName)")
            #expect(option.spec.names.contains(option.spec.commandLineName))
        }
        // Every other word that looks like an option is one of render's.
        let known = Set(RenderCommand.spec.options.flatMap(\.names))
        for word in arguments where word.hasPrefix("-") {
            #expect(known.contains(word), "\(word) is no option of render")
        }
    }

    @Test("a render's --isolate workers get its plugin folders, scale and planning options, and parse as worker")
    func workerCommandLine() throws {
        let render = try RenderCommand(
            ParsedArguments(
                [
                    "/jobs/a.json", "--isolate", "--scale", "0.5", "--plugin-path", "/p/one", "--plugin-path",
                    "/p/two", "--out", "/o", "--output-root", "/", "--frames", "1-9", "--variants", "bob", "-j", "2",
                ],
                spec: RenderCommand.spec, environment: [:]))
        let arguments = try #require(render.isolation?.arguments)
        #expect(arguments.first == WorkerCommand.spec.name)
        let worker = try WorkerCommand(Self.parsed(arguments))
        #expect(worker.scale == 0.5)
        #expect(worker.arguments.positionals == ["/jobs/a.json"])
        #expect(worker.arguments.all(CommonOptions.pluginPath) == ["/p/one", "/p/two"])
        #expect(worker.arguments[RenderCommand.out] == "/o")
        #expect(worker.arguments[RenderCommand.outputRoot] == "/")
        #expect(worker.arguments[RenderCommand.frames] == "1-9")
        #expect(worker.arguments[CommonOptions.variants] == "bob")
    }

    @Test("a C plugin project's `make test` renders its example job with render's own options")
    func pluginProjectTest() throws {
        let scaffold = try PluginScaffold(
            id: "sparkle", language: .c, testRender: PluginNewCommand.testRender(pluginFolder: "."))
        let makefile = try #require(scaffold.files["Makefile"])
        #expect(
            makefile.contains(
                "\t$(RENDERFARM) " + PluginNewCommand.testRender(pluginFolder: ".").joined(separator: " ") + "\n"))
        let render = try RenderCommand(Self.parsed(PluginNewCommand.testRender(pluginFolder: ".")))
        #expect(render.arguments.positionals == [PluginScaffold.exampleJobFile])
        #expect(render.arguments.all(CommonOptions.pluginPath) == ["."])
        #expect(render.arguments[RenderCommand.frames] == PluginScaffold.testFrames)
        #expect(render.arguments[RenderCommand.out] == PluginScaffold.testOutput)
        #expect(render.progress == ProgressMode.none)
        #expect(makefile.contains("rm -rf \(PluginScaffold.testOutput)\n"))
    }

    @Test("the studio's render button runs render as the studio's sandbox says, with its frames and plugin folders")
    func studioRenderButton() throws {
        for sandbox in [SandboxMode.strict, .require, .off, nil] {
            let command = StudioCommand.renderCommand(executable: "/opt/bin/renderfarm", sandbox: sandbox)
            #expect(command.executable == "/opt/bin/renderfarm")
            let request = RenderCommandLine.Request(
                jobFile: "/jobs/live hearts.json", frames: "0-9:2", video: nil, scratch: "/tmp/s",
                pluginFolders: ["/plug ins", "/opt/plugins"])
            let steps = command.steps(request)
            #expect(steps.count == 1)
            let render = try RenderCommand(Self.parsed(steps[0]))
            #expect(render.arguments.positionals == ["/jobs/live hearts.json"])
            #expect(render.arguments[RenderCommand.frames] == "0-9:2")
            #expect(render.arguments.all(CommonOptions.pluginPath) == ["/plug ins", "/opt/plugins"])
            #expect(render.progress == .json)
            #expect((render.isolation != nil) == (sandbox != nil), "\(String(describing: sandbox))")
            if let sandbox { #expect(render.sandbox == sandbox) }
            var whole = request
            whole.frames = nil
            #expect(try RenderCommand(Self.parsed(command.steps(whole)[0])).arguments[RenderCommand.frames] == nil)

            // A video: straight into it, or, with workers (which write PNGs), the frames into the scratch
            // folder and then encoded, as the same preset.
            var video = request
            video.video = RenderCommandLine.Video(file: "/out/a b.webm", preset: "webm-alpha")
            let videoSteps = command.steps(video)
            let first = try RenderCommand(Self.parsed(videoSteps[0]))
            #expect(first.arguments[RenderCommand.frames] == "0-9:2")
            if sandbox == nil {
                #expect(videoSteps.count == 1)
                #expect(first.arguments[RenderCommand.video] == "/out/a b.webm")
                #expect(first.arguments[EncodeCommand.preset] == "webm-alpha")
            } else {
                #expect(videoSteps.count == 2)
                #expect(first.isolation != nil && first.arguments[RenderCommand.out] == "/tmp/s")
                let encode = try EncodeCommand(Self.parsed(videoSteps[1]))
                #expect(encode.arguments.positionals == ["/tmp/s"])
                #expect(encode.arguments[EncodeCommand.output] == "/out/a b.webm")
                #expect(encode.arguments[EncodeCommand.preset] == "webm-alpha")
                #expect(encode.arguments[EncodeCommand.allowMissing])
                #expect(encode.arguments.all(CommonOptions.pluginPath) == ["/plug ins", "/opt/plugins"])
            }
        }
    }
}
