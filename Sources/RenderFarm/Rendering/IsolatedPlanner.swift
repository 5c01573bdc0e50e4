import Foundation
import Locking
import RenderFarmJobs
import StrictJSON

/// What creating one layer's plugin instance gave (ABI `create`, then `verify`).
package enum CreatedLayer: Sendable, Equatable {
    /// The instance exists: what the plugin warned about, the files it names (ABI `input_files`), the sound it
    /// plays (ABI `sounds`) and its items' moments (ABI `moments`).
    case created(warnings: [String], inputFiles: [String], sounds: [DeclaredSound] = [], moments: [DeclaredMoment] = [])
    /// The plugin refused: its message.
    case failed(String)
}

/// `render --isolate`'s planning (and the studio's): a sandboxed worker (`worker --plan`) creates and verifies each
/// job's instances, so that no plugin code — and no media a plugin parses — runs in the render's own process. The
/// render validates the parameters from the plugins' descriptors itself and takes from the worker only what
/// creating the instances said, as untrusted data: each layer's warnings or failure and the files it names,
/// which must lie where that worker could read (`WorkerScope`) and which the render hashes itself.
package struct IsolatedPlanner: Sendable {
    /// The worker command line after the executable (`Isolation.arguments`; the studio's preview worker's).
    package var arguments: [String]
    /// The plugin search path, which a worker reads.
    package var pluginFolders: [String]
    /// `--scale`, which replaces the canvases' scale.
    package var scale: Double?
    /// The job file's text when the worker is to plan it rather than the file on disk (the studio checks an
    /// edit before it saves it): sent on the worker's socket (`--job-text`).
    package var jobText: [UInt8]?
    /// The environment the worker starts in (`Isolation.environment`).
    package var environment: [String: String]

    package init(
        arguments: [String], pluginFolders: [String], scale: Double?, jobText: [UInt8]? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.arguments = arguments
        self.pluginFolders = pluginFolders
        self.scale = scale
        self.jobText = jobText
        self.environment = environment
    }

    /// The option that makes a planning worker read the job file's text from its socket: `text N`, then N bytes.
    package static let textOption = "--job-text"

    /// Why a planning worker gave nothing.
    struct Failure: Error, Sendable {
        var message: String
    }

    /// The worker's reply line: `planned` and the layers as JSON.
    static let replyWord = "planned"

    /// What creating the layers of the jobs at `positions` among `jobs` gave in sandboxed workers, by position and
    /// layer index; or why a worker gave nothing. One worker plans the jobs of one job file (its variants), which
    /// name the same folder: its sandbox reads what any of them may name.
    func createdLayers(of jobs: [LoadedJob], positions: [Int]) -> [Int: Result<[Int: CreatedLayer], Failure>] {
        var files: [String: [Int]] = [:]
        var order: [String] = []
        for position in positions where jobs.indices.contains(position) {
            if files[jobs[position].file] == nil { order.append(jobs[position].file) }
            files[jobs[position].file, default: []].append(position)
        }
        // The files' workers on all cores.
        let groups = order.map { files[$0] ?? [] }
        let results = Locked<[Int: Result<[Int: CreatedLayer], Failure>]>([:])
        DispatchQueue.concurrentPerform(iterations: groups.count) { index in
            let group = groups[index]
            let answer = ask(group)
            results.withLock { results in
                for position in group {
                    switch answer {
                    case .success(let planned):
                        results[position] =
                            planned[position].map { .success($0) }
                            ?? .failure(Failure(message: "the planning worker did not report this job"))
                    case .failure(let failure):
                        results[position] = .failure(failure)
                    }
                }
            }
        }
        return results.withLock { $0 }
    }

    /// Starts a planning worker for the jobs at `positions` and reads its reply.
    private func ask(_ positions: [Int]) -> Result<[Int: [Int: CreatedLayer]], Failure> {
        let executable = PluginCatalog.workerExecutable
        let command =
            arguments + ["--plan", positions.map(String.init).joined(separator: ",")]
            + (jobText == nil ? [] : [Self.textOption])
        let group = WorkerGroup()
        let worker: (pid: pid_t, channel: WorkerChannel)
        do {
            worker = try WorkerProcess.spawn(executable, arguments: command, environment: environment, group: group)
        } catch {
            return .failure(Failure(message: "the planning worker did not start: \(error.message)"))
        }
        defer {
            worker.channel.close()
            group.reap(worker.pid, killing: true)
        }
        if let jobText {
            do {
                try worker.channel.send(jobText: jobText)
            } catch {
                return .failure(Failure(message: "the planning worker ended before it read the job"))
            }
        }
        // The whole reply within the start timeout; a worker's first line may say why it gave none.
        let deadline = ContinuousClock.now + .seconds(WorkerProcess.startTimeout)
        var said: String?
        let next = { () throws(WorkerChannel.Failure) -> String in
            let left = (deadline - ContinuousClock.now).seconds
            guard left > 0 else { throw .timedOut }
            let line = try worker.channel.receive(timeout: left)
            if said == nil { said = WorkerReply.reason(line) }
            return said == nil ? line : ""
        }
        let reply = Result { () throws(WorkerChannel.Failure) in try Self.read(next) }
        if let said { return .failure(Failure(message: said)) }
        switch reply {
        case .success(let planned?) where Set(planned.keys) == Set(positions):
            return .success(planned)
        case .success:
            return .failure(Failure(message: "the planning worker sent a reply the protocol does not have"))
        case .failure(.timedOut):
            let limit = Int(WorkerProcess.startTimeout)
            return .failure(Failure(message: "the planning worker took longer than \(limit) s; it was killed"))
        case .failure:
            let why = "a plugin's create or verify crashed it"
            return .failure(Failure(message: "the planning worker ended before it replied (\(why))"))
        }
    }

    /// The issues of files the created layers name that a worker of `job` could not read (outside `WorkerScope`):
    /// the worker that draws its frames could not read them either, and this process does not read a file on a
    /// plugin's word alone.
    func refusedInputs(_ job: LoadedJob, layers: [Int], catalog: PluginCatalog, created: [CreatedLayer]) -> [JobIssue] {
        let scope = WorkerScope(
            jobs: [job], catalog: catalog, pluginFolders: pluginFolders, cacheFolders: [], scale: scale)
        return zip(layers, created).flatMap { index, created -> [JobIssue] in
            guard case .created(_, let files, _, _) = created else { return [] }
            let folder = job.spec.layers[index].directory(in: job.directory)
            let absolute = { (file: String) in
                file.hasPrefix("/") ? file : (folder as NSString).appendingPathComponent(file)
            }
            let refused = Set(scope.unreadable(files.map(absolute)))
            return files.filter { refused.contains(absolute($0)) }.map { file in
                JobIssue(
                    path: job.spec.layers[index].path,
                    "the plugin names the input file \(file), which its sandboxed worker cannot read: under --isolate "
                        + "a plugin reads the files in the job's folder, its plugin folder and the system's files; "
                        + "move the file into the job's folder (\(job.directory))")
            }
        }
    }

    /// The reply, one line each (a line holds at most `WorkerReplyCheck.maximumLine` bytes): `job K` starts job K's
    /// layers; `layer I` starts a created layer, followed by its `warning "…"` and `input "…"` lines (JSON
    /// strings), then its `sound {…}` lines (`DeclaredSound.json`, after the inputs they name) and `moment {…}` lines (`DeclaredMoment.json`); `failed I "…"` is a
    /// layer the plugin refused; `planned` ends the reply.
    package static func lines(_ jobs: [Int: [Int: CreatedLayer]]) -> [String] {
        let quoted = { (text: String) in JSONValue.string(text).serialized() }
        var lines: [String] = []
        for position in jobs.keys.sorted() {
            lines.append("job \(position)")
            let layers = jobs[position] ?? [:]
            for index in layers.keys.sorted() {
                switch layers[index] {
                case .created(let warnings, let inputs, let sounds, let moments)?:
                    lines.append("layer \(index)")
                    lines += warnings.map { "warning " + quoted($0) } + inputs.map { "input " + quoted($0) }
                    lines += sounds.map { "sound " + $0.json.serialized(sortedKeys: true) }
                    lines += moments.map { "moment " + $0.json.serialized(sortedKeys: true) }
                case .failed(let message)?:
                    lines.append("failed \(index) " + quoted(message))
                case nil:
                    break
                }
            }
        }
        return lines + [replyWord]
    }

    /// Reads a reply's lines (`lines`) up to `planned`; nil when one is not of the protocol.
    static func read(_ next: () throws(WorkerChannel.Failure) -> String) throws(WorkerChannel.Failure)
        -> [Int: [Int: CreatedLayer]]?
    {
        var jobs: [Int: [Int: CreatedLayer]] = [:]
        var job: Int?
        var layer:
            (index: Int, warnings: [String], inputs: [String], sounds: [DeclaredSound], moments: [DeclaredMoment])?
        func close() {
            guard let position = job, let open = layer else { return }
            jobs[position, default: [:]][open.index] = .created(
                warnings: open.warnings, inputFiles: open.inputs, sounds: open.sounds, moments: open.moments)
            layer = nil
        }
        let string = { (text: Substring) -> String? in (try? JSONParser.parse(String(text)))?.stringValue }
        while true {
            let line = try next()
            guard line != replyWord else {
                close()
                return jobs
            }
            let words = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            switch (words.first, words.count) {
            case ("job", 2):
                close()
                guard let position = whole(words[1], below: Int(Int32.max)), jobs[position] == nil else { return nil }
                job = position
                jobs[position] = [:]
            case ("layer", 2):
                close()
                guard job != nil, let index = whole(words[1], below: JobDecoder.Limits.maxLayers) else { return nil }
                layer = (index, [], [], [], [])
            case ("failed", 3):
                close()
                guard let position = job, let index = whole(words[1], below: JobDecoder.Limits.maxLayers),
                    let message = string(words[2])
                else { return nil }
                jobs[position]?[index] = .failed(message)
            case ("warning", _), ("input", _):
                let rest = line.drop { $0 != " " }.dropFirst()
                guard layer != nil, let text = string(rest) else { return nil }
                if words.first == "warning" { layer?.warnings.append(text) } else { layer?.inputs.append(text) }
            case ("sound", _):
                // Checked as the plugin's own sounds are, and of a file the layer names.
                let rest = line.drop { $0 != " " }.dropFirst()
                guard let open = layer, open.sounds.count < DeclaredSound.perLayer,
                    let value = try? JSONParser.parse(String(rest)), let sound = DeclaredSound(json: value),
                    open.inputs.contains(sound.file)
                else { return nil }
                layer?.sounds.append(sound)
            case ("moment", _):
                // Checked as the plugin's own moments are.
                let rest = line.drop { $0 != " " }.dropFirst()
                guard let open = layer, open.moments.count < DeclaredMoment.perLayer,
                    let value = try? JSONParser.parse(String(rest)), let moment = DeclaredMoment(json: value)
                else { return nil }
                layer?.moments.append(moment)
            default:
                return nil
            }
        }
    }

    /// A whole number in 0..<`limit` written in decimal digits, or nil.
    private static func whole(_ text: Substring, below limit: Int) -> Int? {
        guard text.count <= 10, text.allSatisfy(\.isASCII), let number = Int(text), number >= 0, number < limit else {
            return nil
        }
        return number
    }
}

extension RenderEngine {
    /// The planning worker's side of `IsolatedPlanner`: each layer of `job` (at the options' scale) looked up,
    /// validated, created and verified here, and what that gave, by layer index (layers whose effect or
    /// parameters are refused are left out: the render finds those itself). The instances are destroyed again.
    package func createdLayers(_ job: LoadedJob) -> [Int: CreatedLayer] {
        var job = job
        if let scale = options.scale { _ = RenderPlan.rescale(&job.spec.canvas, to: scale, named: "scale") }
        let (validated, _) = RenderPlan.validateLayers(job, catalog: catalog)
        let (_, created) = RenderPlan.createInstances(validated, job: job, verifying: true)
        return Dictionary(zip(validated.map(\.index), created), uniquingKeysWith: { first, _ in first })
    }
}
