import Foundation
import RenderFarmJobs
import RenderFarmOutput
import StrictJSON

/// `plugin check` in a sandboxed worker (article UntrustedPlugins): the plugin under check is code from
/// somewhere else, so by default its every call runs in a worker process of `renderfarm` locked in like the
/// workers of `render --isolate` (the same spawn, channel and `WorkerSandbox`). The worker sends one line per
/// finding, `finding LEVEL<TAB>CHECK<TAB>MESSAGE`, then `done`; the parent reads them as untrusted input.
extension PluginCheck {
    /// The most findings a worker may send (a check makes a few dozen).
    static let maximumFindings = 10_000

    /// The files the instances at `defaults` and at each value the range check tries name (made and
    /// destroyed here, before the sandbox), each once; an instance the plugin refuses names none.
    func inputFiles(_ defaults: JSONObject) -> [String] {
        var settings = [defaults]
        for parameter in plugin.info.parameters {
            for value in Self.rangeEnds(parameter) {
                var params = defaults
                params[parameter.name] = value
                settings.append(params)
            }
        }
        var files: [String] = []
        for (index, params) in settings.enumerated() {
            // The defaults' instance verifies its input too, as before the sandbox it always has.
            let named = (try? makeInstance(params, verifying: index == 0))?.inputFiles ?? []
            let inputs = LayerInput.hashing(
                named, layer: 0, reader: .plugin, jobDirectory: FileManager.default.currentDirectoryPath)
            for path in inputs.compactMap({ $0.read?.path }) where !files.contains(path) { files.append(path) }
        }
        return files
    }

    /// Runs the check in a worker started as `renderfarm ARGUMENTS` (the hidden check worker command),
    /// and returns its findings; a denial, a crash or a reply the protocol does not have ends the worker
    /// and becomes a failed finding `sandbox` or `worker`. The worker starts in `environment` (the command's).
    package static func runInWorker(
        arguments: [String], environment: [String: String], frameTimeout: Double = frameTimeout
    ) -> [PluginFinding] {
        let executable = PluginCatalog.workerExecutable
        let pid: pid_t
        let channel: WorkerChannel
        let group = WorkerGroup()
        do throws(FrameFailure) {
            (pid, channel) = try WorkerProcess.spawn(
                executable, arguments: arguments, environment: environment, group: group)
        } catch {
            return [PluginFinding(.failure, "worker", "cannot start a worker process: \(error.message)")]
        }
        var findings: [PluginFinding] = []
        var ending: PluginFinding?
        var ended = false
        var progress = CheckWorkerProgress(frameTimeout: frameTimeout)
        do throws(WorkerChannel.Failure) {
            ending = try read(from: channel, into: &findings, progress: &progress)
        } catch .tooLong {
            ending = PluginFinding(
                .failure, "worker",
                "the worker process sent a line longer than \(WorkerReplyCheck.maximumLine) bytes; it was ended")
        } catch .timedOut {
            ending = progress.hang()
        } catch {
            ended = true
        }
        channel.close()
        let status = group.reap(pid, killing: ending != nil).status
        if ended {
            ending =
                progress.ended(status: status)
                ?? PluginFinding(
                    .failure, "worker",
                    "the check did not finish: \(WorkerProcess.describe(status: status))")
        }
        return findings + (ending.map { [$0] } ?? [])
    }

    /// Reads findings until `done` (nil) or a line that ends the check (its finding).
    private static func read(
        from channel: WorkerChannel, into findings: inout [PluginFinding], progress: inout CheckWorkerProgress
    )
        throws(WorkerChannel.Failure) -> PluginFinding?
    {
        while true {
            let line = try channel.receive(timeout: progress.timeout)
            if line == "done" { return nil }
            if progress.take(line) { continue }
            if line.hasPrefix(WorkerReply.sandboxDenial) {
                return PluginFinding(.failure, "sandbox", String(line.dropFirst(WorkerReply.sandboxDenial.count)))
            }
            if line.hasPrefix("error ") {
                return PluginFinding(.failure, "worker", String(line.dropFirst(6)))
            }
            let fields = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, fields[0].hasPrefix("finding "),
                let level = PluginFinding.Level(rawValue: String(fields[0].dropFirst(8))), !fields[1].isEmpty,
                findings.count < maximumFindings
            else {
                return PluginFinding(
                    .failure, "worker",
                    "the worker process sent a reply the protocol does not have: \(WorkerReplyCheck.shown(line)); "
                        + "it was ended")
            }
            findings.append(PluginFinding(level, String(fields[1]), String(fields[2])))
        }
    }

    /// The worker's side: makes an instance at the setting's parameters and one at each value the range
    /// check tries (which name the files the plugin reads: a plugin's files may depend on its parameters,
    /// as a render's workers make every instance of their job before they lock in), locks the process in —
    /// it reads the system's files, the plugin library and those files, and writes only `scratch`, which
    /// becomes its temporary folder (the cache and stdout checks) — then runs the check and sends the
    /// findings. Under `.require`, a worker that cannot apply every layer says so and checks nothing (false).
    package static func serve(
        _ plugin: LoadedPlugin, setting: Setting, sandbox: SandboxMode, entered: SandboxLayers, missing: String,
        scratch: String, cpuSeconds: Double, connection: WorkerConnection
    ) -> Bool {
        let check = PluginCheck(plugin, setting: setting)
        if sandbox != .off {
            setenv("TMPDIR", scratch, 1)
            let (defaults, _) = ParameterValidator.validate(setting.params, against: plugin.info, path: "params")
            let read = [plugin.info.path] + check.inputFiles(defaults)
            let canvas = Int(setting.width * setting.scale) * Int(setting.height * setting.scale) * 4
            let (applied, problems) = WorkerSandbox.apply(
                read: read, write: [scratch], frameBytes: canvas * (setting.threads + 2), cpuSeconds: cpuSeconds,
                entered: entered)
            if sandbox == .require && applied != .all {
                let names = SandboxLayers.all.subtracting(applied).names.joined(separator: ", ")
                let why = [missing, problems].filter { !$0.isEmpty }.joined(separator: "; ")
                connection.fail("--sandbox require: this worker could not apply \(names) (\(why))")
                return false
            }
        }
        func send(_ findings: [PluginFinding]) throws(WorkerChannel.Failure) {
            for finding in findings {
                let message = finding.message.map { $0.isNewline || $0 == "\t" ? " " : $0 }
                try connection.channel.send("finding \(finding.level.rawValue)\t\(finding.check)\t\(String(message))")
            }
        }
        do throws(WorkerChannel.Failure) {
            // The descriptor's findings first: they reach the parent even when a call is denied.
            try send(check.descriptorFindings())
            try send(check.callFindings())
            try connection.channel.send("done")
        } catch {
            // The parent went away: nobody reads the findings.
        }
        return true
    }
}
