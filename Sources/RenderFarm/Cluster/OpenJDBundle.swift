import FileOutput
import Foundation
import RenderFarmOutput

/// An Open Job Description job bundle (<doc:RunningOnACluster>), as AWS Deadline Cloud's `deadline bundle
/// submit` and the reference runtime's `openjd run` read it: `template.yaml` (`jobtemplate-2023-09`) with the
/// steps Prepare (unless turned off), Render (a task per shard) and Merge, each depending on the one before;
/// `parameter_values.yaml` and `asset_references.yaml`. The job files and the output folder are `PATH` job
/// parameters (`dataFlow` `IN` and `OUT`), so job attachments carry the right files. Pure string building
/// from the command words `renderfarm submit` gives (see `ScriptWord`).
package struct OpenJDBundle: Sendable {
    /// What each step runs and what the hosts need.
    package struct Request: Sendable, Equatable {
        /// The `renderfarm` the steps run: the default of the `RenderFarm` job parameter.
        package var executable: String
        /// The job's name (shown by the farm as `renderfarm-<name>`).
        package var name: String
        package var tasks: Int
        /// Frames in flight of each render task (`-j`): the hosts' vCPU minimum; nil for no minimum.
        package var cpus: Int?
        /// Absolute paths of the job files, each a `PATH` parameter (`JobFile`, or `JobFile1` … with several).
        package var jobFiles: [String]
        /// The output folder of the submission: the `OutputDir` parameter.
        package var outputFolder: String
        /// The arguments of the Prepare step (`prepare …`), nil for no Prepare step.
        package var prepare: [ScriptWord]?
        /// The arguments of each Render task (`render …`); `.taskShard` becomes `{{Task.Param.Shard}}/N`.
        package var render: [ScriptWord]
        /// The arguments of the Merge step (`merge …`).
        package var merge: [ScriptWord]

        package init(
            executable: String, name: String, tasks: Int, cpus: Int?, jobFiles: [String], outputFolder: String,
            prepare: [ScriptWord]?, render: [ScriptWord], merge: [ScriptWord]
        ) {
            self.executable = executable
            self.name = name
            self.tasks = tasks
            self.cpus = cpus
            self.jobFiles = jobFiles
            self.outputFolder = outputFolder
            self.prepare = prepare
            self.render = render
            self.merge = merge
        }
    }

    package static let templateName = "template.yaml"
    package static let parameterValuesName = "parameter_values.yaml"
    package static let assetReferencesName = "asset_references.yaml"
    /// The job parameters the steps read.
    package static let executableParameter = "RenderFarm"
    package static let outputParameter = "OutputDir"
    /// The task parameter of the Render step: the shard's index K of `K/N`.
    package static let shardParameter = "Shard"

    /// The values of the `PATH` job parameters, by name: the job files and the output folder here. OpenJD
    /// takes no absolute default for a `PATH` parameter, so they go into `parameter_values.yaml` (Deadline Cloud)
    /// and to `openjd run` as `-p NAME=VALUE`.
    package let pathValues: [(name: String, value: String)]
    /// The arguments each step's action gives `{{Param.RenderFarm}}`, by step name, in order, as the template
    /// holds them (with their `{{Param.…}}` and `{{Task.Param.Shard}}` references).
    package let arguments: [(step: String, arguments: [String])]
    package let template: String
    package let parameterValues: String
    package let assetReferences: String

    /// The files of the bundle by name, in the order written.
    package var files: [(name: String, text: String)] {
        [
            (Self.templateName, template), (Self.parameterValuesName, parameterValues),
            (Self.assetReferencesName, assetReferences),
        ]
    }

    /// The job parameter of each job file: `JobFile` for one, `JobFile1` … for several.
    package static func jobFileParameters(count: Int) -> [String] {
        count == 1 ? ["JobFile"] : (1...max(1, count)).map { "JobFile\($0)" }
    }

    package init(_ request: Request) throws(OpenJDBundleError) {
        let jobParameters = Self.jobFileParameters(count: request.jobFiles.count)
        let parameterOf = Dictionary(zip(request.jobFiles, jobParameters), uniquingKeysWith: { first, _ in first })
        // OpenJD's format strings have no escape for "{{" or "}}" (a "}}" without its "{{" fails `openjd check`):
        // a value holding either cannot be an argument.
        for word in request.render + request.merge + (request.prepare ?? []) {
            switch word {
            case .value(let text), .output(_, let text):
                if let braces = OpenJDBundleError.braces(in: text) { throw .formatBraces(text, braces: braces) }
            case .jobFile, .taskShard, .taskCPUs: break
            }
        }
        let argument = { (word: ScriptWord) -> String in
            switch word {
            case .value(let text): text
            case .jobFile(let path): parameterOf[path].map { "{{Param.\($0)}}" } ?? path
            case .output(_, let relative):
                "{{Param.\(Self.outputParameter)}}" + (relative.isEmpty ? "" : "/" + relative)
            case .taskShard: "{{Task.Param.\(Self.shardParameter)}}/\(request.tasks)"
            // No variable says a task's CPUs (the CLI gives -j or leaves it out): the hosts' minimum, or 1.
            case .taskCPUs: String(request.cpus ?? 1)
            }
        }
        let linux = YAMLValue.map([
            "name": .string("attr.worker.os.family"), "anyOf": .list([.string("linux")]),
        ])
        let cpus = request.cpus.map { YAMLValue.map(["name": .string("amount.worker.vcpu"), "min": .integer($0)]) }
        func step(
            _ name: String, _ arguments: [ScriptWord], after: String?, description: String,
            parameterSpace: YAMLValue? = nil, amounts: [YAMLValue] = []
        ) -> YAMLValue {
            .map([
                "name": .string(name),
                "description": .string(description),
                "dependencies": after.map { .list([.map(["dependsOn": .string($0)])]) },
                "parameterSpace": parameterSpace,
                "hostRequirements": .map([
                    "amounts": amounts.isEmpty ? nil : .list(amounts), "attributes": .list([linux]),
                ]),
                "script": .map([
                    "actions": .map([
                        "onRun": .map([
                            "command": .string("{{Param.\(Self.executableParameter)}}"),
                            "args": .list(arguments.map { .string(argument($0)) }),
                            // renderfarm stops at SIGTERM with its journal intact; a re-run resumes.
                            "cancelation": .map([
                                "mode": .string("NOTIFY_THEN_TERMINATE"), "notifyPeriodInSeconds": .integer(30),
                            ]),
                        ])
                    ])
                ]),
            ])
        }
        var steps: [YAMLValue] = []
        let stepWords: [(String, [ScriptWord])] =
            (request.prepare.map { [("Prepare", $0)] } ?? []) + [("Render", request.render), ("Merge", request.merge)]
        arguments = stepWords.map { ($0.0, $0.1.map(argument)) }
        if let prepare = request.prepare {
            steps.append(
                step(
                    "Prepare", prepare, after: nil,
                    description: "Fills the output folder's caches (renderfarm prepare) before the shards start."))
        }
        steps.append(
            step(
                "Render", request.render, after: request.prepare == nil ? nil : "Prepare",
                description: "Task K renders shard K/\(request.tasks) of the frames (renderfarm render --shard).",
                parameterSpace: .map([
                    "taskParameterDefinitions": .list([
                        .map([
                            "name": .string(Self.shardParameter), "type": .string("INT"),
                            "range": .string("0-\(request.tasks - 1)"),
                        ])
                    ])
                ]),
                amounts: cpus.map { [$0] } ?? []))
        steps.append(
            step(
                "Merge", request.merge, after: "Render",
                description: "Joins the shards' journals into manifest.json (renderfarm merge)."))

        let shownName = ShellWord.plain(request.name)
        var parameters: [YAMLValue] = zip(jobParameters, request.jobFiles).map { name, path in
            .map([
                "name": .string(name), "type": .string("PATH"), "objectType": .string("FILE"),
                "dataFlow": .string("IN"),
                "description": .string("A job file to render (its folder's assets travel with it)."),
            ])
        }
        parameters.append(
            .map([
                "name": .string(Self.outputParameter), "type": .string("PATH"), "objectType": .string("DIRECTORY"),
                "dataFlow": .string("OUT"),
                "description": .string("The output folder: frames, journals, manifest.json."),
            ]))
        parameters.append(
            .map([
                "name": .string(Self.executableParameter), "type": .string("STRING"),
                "default": .string(request.executable), "minLength": .integer(1),
                "description": .string(
                    "The renderfarm executable the steps run: renderfarm when a queue environment puts it on PATH."),
            ]))
        template =
            "# An Open Job Description job (renderfarm submit --openjd): check with `openjd check`, run\n"
            + "# with `openjd run template.yaml --step Merge --run-dependencies -p NAME=VALUE …` (the\n"
            + "# values of parameter_values.yaml), submit with `deadline bundle submit`.\n"
            + YAMLValue.map([
                "specificationVersion": .string("jobtemplate-2023-09"),
                "name": .string(SlurmScripts.jobName(request.name)),
                "description": .string("Renders \(shownName) in \(request.tasks) shards, then merges them."),
                "parameterDefinitions": .list(parameters),
                "steps": .list(steps),
            ]).document
        pathValues = Array(zip(jobParameters + [Self.outputParameter], request.jobFiles + [request.outputFolder]))
        parameterValues =
            YAMLValue.map([
                "parameterValues": .list(pathValues.map { .map(["name": .string($0), "value": .string($1)]) })
            ]).document
        let folders = request.jobFiles.map { ($0 as NSString).deletingLastPathComponent }
            .reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        assetReferences =
            YAMLValue.map([
                "assetReferences": .map([
                    "inputs": .map([
                        "filenames": .list(request.jobFiles.map(YAMLValue.string)),
                        "directories": .list(folders.map(YAMLValue.string)),
                    ]),
                    "outputs": .map(["directories": .list([.string(request.outputFolder)])]),
                    "referencedPaths": .list([]),
                ])
            ]).document
    }

    /// Writes the bundle's files into `folder`, creating it.
    package func write(to folder: String) throws(OutputError) {
        try AtomicFile.createDirectory(folder)
        for (name, text) in files {
            try AtomicFile.write(text, to: (folder as NSString).appendingPathComponent(name))
        }
    }
}

/// A value cannot go into an OpenJD job template.
package enum OpenJDBundleError: Error, Equatable, CustomStringConvertible {
    /// OpenJD reads `{{` in an argument as the start of a parameter reference and `}}` as its end, and has no
    /// escape for either; `braces` is the one the value holds first.
    case formatBraces(String, braces: String)

    /// The first of `{{` and `}}` in `text`, if any.
    static func braces(in text: String) -> String? {
        let opening = text.range(of: "{{")?.lowerBound
        let closing = text.range(of: "}}")?.lowerBound
        switch (opening, closing) {
        case (nil, nil): return nil
        case (.some(let open), .some(let close)): return open < close ? "{{" : "}}"
        case (.some, nil): return "{{"
        case (nil, .some): return "}}"
        }
    }

    package var description: String {
        switch self {
        case .formatBraces(let value, let braces):
            "\(YAMLValue.quoted(value)) holds \"\(braces)\", which an Open Job Description template reads as "
                + (braces == "{{" ? "the start" : "the end") + " of a parameter reference and cannot escape; "
                + "rename the file or folder, or choose other values"
        }
    }
}
