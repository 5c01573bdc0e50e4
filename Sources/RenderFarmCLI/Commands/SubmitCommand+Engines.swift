import FileOutput
import Foundation
import RenderFarm
import RenderFarmOutput

extension SubmitCommand {
    /// Where `submit` sends the render.
    enum Engine: Equatable {
        case slurm
        /// An Open Job Description job bundle written into the folder.
        case openjd(String)
        /// Kubernetes Jobs written into the folder.
        case kubernetes(String)

        /// The one engine the arguments name; the options of another engine are refused.
        init(_ arguments: ParsedArguments) throws(UsageError) {
            var chosen: [Engine] = []
            if arguments[SubmitCommand.slurm] { chosen.append(.slurm) }
            if let folder = arguments[SubmitCommand.openjd] { chosen.append(.openjd(SubmitCommand.absolute(folder))) }
            if let folder = arguments[SubmitCommand.kubernetes] {
                chosen.append(.kubernetes(SubmitCommand.absolute(folder)))
            }
            guard chosen.count == 1, let engine = chosen.first else {
                throw UsageError(
                    message: "submit needs one engine: --slurm, --openjd DIR or --kubernetes DIR", command: "submit")
            }
            self = engine
            let slurmOnly: [any OptionKey] = [
                SubmitCommand.partition, SubmitCommand.time, SubmitCommand.cpusPerTask, SubmitCommand.wait,
            ]
            let kubernetesOnly: [any OptionKey] = [SubmitCommand.image, SubmitCommand.volumeClaim]
            let foreign: [any OptionKey]
            switch engine {
            case .slurm: foreign = kubernetesOnly
            case .openjd: foreign = slurmOnly + kubernetesOnly + [SubmitCommand.maxRunning]
            case .kubernetes: foreign = slurmOnly
            }
            for option in foreign where arguments.has(option) {
                throw UsageError(
                    message: "\(option.spec.primaryName) does not apply to \(engine.flag)", command: "submit")
            }
            if case .kubernetes = engine, arguments[SubmitCommand.image] == nil {
                throw UsageError(
                    message: "--kubernetes needs --image IMAGE: the image that has renderfarm", command: "submit")
            }
        }

        var flag: String {
            switch self {
            case .slurm: SubmitCommand.slurm.spec.primaryName
            case .openjd: SubmitCommand.openjd.spec.primaryName
            case .kubernetes: SubmitCommand.kubernetes.spec.primaryName
            }
        }
    }

    /// Writes (or with --dry-run prints) the OpenJD bundle or the Kubernetes manifests of `commands`, and says
    /// what to run next; nothing is submitted.
    func describe(_ commands: ClusterCommandLines, name: String, terminal: Terminal) -> ExitCode {
        let folder: String
        let files: [(name: String, text: String)]
        let write: (String) throws(OutputError) -> Void
        let next: [String]
        do {
            switch engine {
            case .slurm:
                return .usage  // `run` writes and submits the Slurm scripts itself
            case .openjd(let bundleFolder):
                let bundle = try OpenJDBundle(
                    OpenJDBundle.Request(
                        executable: Self.executable(), name: name, tasks: tasks, cpus: concurrency,
                        jobFiles: commands.jobFiles, outputFolder: commands.outputFolder, prepare: commands.prepare,
                        render: commands.render, merge: commands.merge))
                (folder, files, write) = (bundleFolder, bundle.files, bundle.write(to:))
                next = [
                    "deadline bundle submit \(ShellWord.quoted(folder))",
                    (["openjd run", ShellWord.quoted(folder + "/" + OpenJDBundle.templateName)]
                        + ["--step", "Merge", "--run-dependencies"]
                        + bundle.pathValues.map { "-p " + ShellWord.quoted("\($0.name)=\($0.value)") })
                        .joined(separator: " "),
                ]
            case .kubernetes(let manifestFolder):
                var commands = commands
                commands.pluginPath = arguments.all(CommonOptions.pluginPath).map(Self.absolute)
                let mount = Self.commonFolder(
                    commands.jobFiles.map { ($0 as NSString).deletingLastPathComponent } + [commands.outputFolder]
                        + commands.pluginPath)
                guard mount != "/" else {
                    let problem =
                        "the job files and the output folder (--out) must lie in one folder that the volume claim "
                        + "holds, mounted at the same path in the pods; they only share /"
                    return .reporting(UsageError(message: problem, command: "submit"), to: terminal)
                }
                let manifests = try KubernetesManifests(
                    KubernetesManifests.Request(
                        executable: "renderfarm", name: name, image: arguments[Self.image] ?? "", tasks: tasks,
                        maxRunning: maxRunning, cpus: concurrency,
                        volumeClaim: arguments[Self.volumeClaim] ?? "renderfarm", mountPath: mount,
                        prepare: commands.prepare, render: commands.render, merge: commands.merge))
                (folder, files, write) = (manifestFolder, manifests.files, manifests.write(to:))
                next = ["bash \(ShellWord.quoted(folder + "/" + KubernetesManifests.submitName))"]
            }
        } catch {
            return .reporting(UsageError(message: "\(error)", command: "submit"), to: terminal)
        }
        if arguments[Self.dryRun] {
            for (name, text) in files {
                terminal.print("# ---- \((folder as NSString).appendingPathComponent(name))\n\(text)")
            }
            terminal.print("# dry run: nothing written; without --dry-run, submit writes \(folder)/, then run:")
            for line in next { terminal.print("#   \(line)") }
            return .ok
        }
        do {
            try write(folder)
        } catch {
            return .reporting(error, to: terminal)
        }
        terminal.print("wrote \(files.map(\.name).joined(separator: ", ")) into \(folder)/")
        for line in next { terminal.print("  run: \(line)") }
        terminal.print("  result: \((commands.outputFolder as NSString).appendingPathComponent(FolderLayout.manifest))")
        return .ok
    }

    /// The deepest folder that holds every one of `folders` (absolute paths).
    static func commonFolder(_ folders: [String]) -> String {
        let split = folders.map { ($0 as NSString).pathComponents }
        guard var common = split.first else { return "/" }
        for components in split.dropFirst() {
            common = zip(common, components).prefix { $0 == $1 }.map(\.0)
        }
        return common.isEmpty ? "/" : NSString.path(withComponents: common)
    }
}
