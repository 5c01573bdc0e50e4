import CFaultReport
import CSandbox
import FileInput
import FileOutput
import Foundation
import Locking
import RenderFarmJobs
import RenderFarmOutput
import StrictJSON

/// `render --isolate`: frames are drawn by worker processes, so a plugin that crashes or hangs
/// fails its frame, not the render.
package struct Isolation: Sendable {
    /// The worker's command line after the executable: the hidden `worker` command with the
    /// jobs and planning options of this run, so each worker prepares the same jobs.
    package var arguments: [String]
    /// Seconds one frame may take before its worker is killed (nil: no limit).
    package var frameTimeout: Double?
    /// The job file's text each worker is sent (`--job-text`) and prepares instead of reading the file: the
    /// studio's previews, which draw the text the studio checked (or that text without the layers it hides).
    package var jobText: [UInt8]?
    /// The environment the workers start in: the command's (`CLI.run`'s), which may differ from this process's,
    /// so that a worker searches the plugin folders (`RENDERFARM_PLUGIN_PATH`, the user's folder) the render did.
    package var environment: [String: String]
    /// The render's workers, which a stopped render ends after `stopGrace`.
    package let workers: WorkerGroup
    /// Workers started before the frames (for their frame keys), waiting for a lane that draws their job's frames.
    let spares = SpareWorkers()

    /// `render --isolate`'s frame timeout when `--frame-timeout` is not given: a hung plugin costs a frame,
    /// not the render.
    package static let defaultFrameTimeout = 300.0
    /// Seconds the frames in flight may still take after the first SIGINT or SIGTERM; then their workers are
    /// killed and the render ends (130) with what was finished recorded. Below the 30 s that Kubernetes and
    /// Slurm wait between SIGTERM and SIGKILL.
    package static let stopGrace = 10.0

    package init(
        arguments: [String], frameTimeout: Double? = nil, jobText: [UInt8]? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment, workers: WorkerGroup = WorkerGroup()
    ) {
        self.arguments = arguments
        self.frameTimeout = frameTimeout
        self.jobText = jobText
        self.environment = environment
        self.workers = workers
    }
}

/// The parent's end of one worker process: sends it frames, reads what it wrote.
///
/// The worker is the same executable (`renderfarm worker …`), connected by a socket pair on its
/// file descriptor 3; its standard output goes to the parent's standard error, so nothing a
/// plugin prints can mix with either the protocol or the render's results. The worker is
/// started on first use and again after it died, and — when there are several jobs — for each job in turn
/// (`worker --serve-job`: it prepares and may read only that job); it dies with the parent (PR_SET_PDEATHSIG;
/// started from `WorkerSpawnThread`, so not with the thread that asked for it).
/// Frames are byte-identical to in-process rendering: the worker draws with the same `FrameWorker` and hands over
/// the pixels (in `WorkerFrameMemory`, or after its reply on the socket); this process encodes them as it encodes
/// its own frames and writes the frame file (`WorkerFrameTransfer`), so a worker needs no write access to the
/// output folder and sends no PNG.
final class WorkerProcess: FrameExecutor {
    private let jobs: [PlannedJob]
    /// Each job's position in `jobs`, which the worker's request names (a batch may hold thousands).
    private let positions: [ObjectIdentifier: Int]
    private let isolation: Isolation
    private var process: (pid: pid_t, channel: WorkerChannel)?
    /// Where a render watches which frame this worker draws (nil: nobody watches).
    private let lane: DrawingLane?
    /// The pixels of the frame the worker sent last, and the encoder that makes its PNG.
    private var pixels: [UInt8] = []
    private let encoder = FrameEncoder()
    /// The memory the running worker draws its frames' pixels into (nil: they come on the socket).
    private var memory: WorkerFrameMemory?
    /// The job the running worker serves when there are several (`--serve-job`): its sandbox reads only that
    /// job's files, so a plugin of one job cannot read another's inputs; a frame of another job starts a new worker.
    private var served: Int?

    /// Time a worker may take to start and prepare its jobs.
    static let startTimeout = 120.0

    init(jobs: [PlannedJob], isolation: Isolation, lane: DrawingLane? = nil) {
        self.jobs = jobs
        self.lane = lane
        positions = Dictionary(
            jobs.enumerated().map { (ObjectIdentifier($1), $0) }, uniquingKeysWith: { first, _ in first })
        self.isolation = isolation
    }

    deinit { stop() }

    func render(_ index: Int, of job: PlannedJob, into folder: FolderDescriptor) throws(FrameFailure)
        -> WrittenFrame
    {
        let (png, frame) = try encoded(index, of: job)
        // The worker cannot write the output folder: this process writes the frame it encoded.
        let clock = ContinuousClock()
        let start = clock.now
        do {
            try job.writeFrame(png, index: index, into: folder)
        } catch {
            throw .output(error)
        }
        var done = frame
        done.timings.write = (clock.now - start).seconds * 1000
        return done
    }

    /// Frame `index` of `job` as the worker drew it, encoded here from the pixels it sent (`WorkerFrameTransfer`);
    /// nothing is written, and the bytes are valid until the next call. `debug` draws the motion overlay of
    /// `preview --debug` over it (the studio's previews).
    func encoded(_ index: Int, of job: PlannedJob, debug: Bool = false) throws(FrameFailure)
        -> (png: UnsafeRawBufferPointer, frame: WrittenFrame)
    {
        guard let jobIndex = positions[ObjectIdentifier(job)] else {
            throw .drawing("job \(job.spec.name) is not one this worker prepared")
        }
        var (_, channel) = try running(serving: jobIndex)
        lane?.begin(job: job.spec.name, frame: index)
        defer { lane?.end() }
        var reply = try request(index, of: job, jobIndex: jobIndex, debug: debug, channel)
        if reply == WorkerReply.retire {
            // Its CPU time nears the sandbox's hard limit: a new worker draws the frame.
            end(job)
            (_, channel) = try running(serving: jobIndex)
            reply = try request(index, of: job, jobIndex: jobIndex, debug: debug, channel)
            if reply == WorkerReply.retire {
                end(job)
                throw .worker("the worker process sent a reply the protocol does not have: it retired twice")
            }
        }
        let canvas = job.spec.canvas
        let draw: Double
        let count = WorkerReplyCheck.pixelBytes(width: canvas.pixelWidth, height: canvas.pixelHeight)
        let shared = memory.map { count <= $0.bytes.count } ?? false
        do throws(WorkerReplyCheck.Rejection) {
            draw = try WorkerReplyCheck.pixels(reply, shared: shared)
            if !shared {
                if pixels.count != count { pixels = [UInt8](repeating: 0, count: count) }
                let timeout = isolation.frameTimeout
                let received: Result<Void, WorkerChannel.Failure> = pixels.withUnsafeMutableBytes { buffer in
                    Result { () throws(WorkerChannel.Failure) in try channel.receive(into: buffer, timeout: timeout) }
                }
                guard case .success = received else { throw .untrusted("did not send the \(count) bytes of its frame") }
            }
        } catch {
            switch error {
            case .reported(let failure): throw failure
            case .untrusted(let reason):
                end(job)
                if isolation.workers.isHalted { throw .interrupted }
                throw .worker("the worker process \(reason); it was ended")
            }
        }
        if let memory, shared {
            // The worker drew into the memory it shares with this process.
            return try encoder.encode(received: UnsafeRawBufferPointer(memory.bytes), of: job, drawMilliseconds: draw)
        }
        let received: Result<(png: UnsafeRawBufferPointer, frame: WrittenFrame), FrameFailure> =
            pixels.withUnsafeBytes { buffer in
                Result { () throws(FrameFailure) in
                    try encoder.encode(received: buffer, of: job, drawMilliseconds: draw)
                }
            }
        return try received.get()
    }

    /// The fingerprints of `job`'s frames as the worker computes them from its instances' frame keys, inside its
    /// sandbox (`keys J`, `WorkerConnection`), checked as untrusted data: frames of the run, 32 hexadecimal digits each. The
    /// worker stays, ready to draw frames.
    func frameFingerprints(of job: PlannedJob) throws(FrameFailure) -> FrameFingerprints {
        guard let jobIndex = positions[ObjectIdentifier(job)] else {
            throw .drawing("job \(job.spec.name) is not one this worker prepared")
        }
        let (_, channel) = try running(serving: jobIndex)
        let timeout = max(Self.startTimeout, isolation.frameTimeout ?? 0)
        let frames = Set(job.frames.frames)
        enum Reply {
            case keyed([Int: String])
            case denied(String)
            case unreadable
        }
        let received = Result { () throws(WorkerChannel.Failure) -> Reply in
            try channel.send("keys \(jobIndex)")
            let head = try channel.receive(timeout: timeout)
            if head.hasPrefix(WorkerReply.sandboxDenial), let denial = WorkerReply.reason(head) {
                return .denied(denial)
            }
            guard head.hasPrefix("keys "), let count = Int(head.dropFirst(5)), (0...frames.count).contains(count) else {
                return .unreadable
            }
            var keyed: [Int: String] = [:]
            for _ in 0..<count {
                let fields = try channel.receive(timeout: timeout).split(separator: " ")
                guard fields.count == 2, let frame = Int(fields[0]), frames.contains(frame), fields[1].count == 32,
                    fields[1].allSatisfy({ $0.isHexDigit && !$0.isUppercase })
                else { return .unreadable }
                keyed[frame] = String(fields[1])
            }
            return .keyed(keyed)
        }
        switch received {
        case .success(.keyed(let keyed)):
            return FrameFingerprints(job: job.fingerprint, keyed: keyed)
        case .success(.denied(let denial)):
            end(job)
            throw .worker(denial)
        case .success(.unreadable):
            end(job)
            throw .worker("the worker process sent frame keys the protocol does not have; it was ended")
        case .failure(.timedOut):
            end(job)
            throw .worker("the worker process took longer than \(Int(timeout)) s for the frame keys; it was killed")
        case .failure:
            throw .worker(end(job) + " while it computed the frame keys")
        }
    }

    /// Hands the running worker to the render's spares (`Isolation.spares`), for the next lane that draws a frame of
    /// its job; this executor keeps none.
    func spare() {
        guard let (pid, channel) = process else { return }
        isolation.spares.add(SpareWorkers.Spare(pid: pid, channel: channel, memory: memory, served: served))
        process = nil
        memory = nil
    }

    /// Asks the running worker for frame `index` and returns its reply line (a sandbox denial ends the worker).
    private func request(
        _ index: Int, of job: PlannedJob, jobIndex: Int, debug: Bool, _ channel: WorkerChannel
    ) throws(FrameFailure) -> String {
        do {
            try channel.send("render \(jobIndex) \(index)" + (debug ? " debug" : ""))
            let reply = try channel.receive(timeout: isolation.frameTimeout)
            // The sandbox denied the plugin something: the worker ends itself after saying what.
            if reply.hasPrefix(WorkerReply.sandboxDenial) { end(job) }
            return reply
        } catch .timedOut {
            end(job)
            if isolation.workers.isHalted { throw .interrupted }
            let limit = JSONValue.number(isolation.frameTimeout ?? 0).serialized()
            throw .worker("took longer than --frame-timeout \(limit) s; its worker process was killed")
        } catch .tooLong {
            end(job)
            throw .worker(
                "the worker process sent a line longer than \(WorkerReplyCheck.maximumLine) bytes; it was ended")
        } catch {
            let death = reap(job)
            if isolation.workers.isHalted { throw .interrupted }
            throw .worker(death)
        }
    }

    /// The running worker, started if needed; checks that it prepared the same jobs.
    private func running(serving jobIndex: Int) throws(FrameFailure) -> (pid_t, WorkerChannel) {
        let serves = serving(jobIndex)
        if let process {
            guard served != serves else { return process }
            // A worker of another job: it ends once it sees the connection closed.
            reap(nil)
        }
        if isolation.workers.isHalted { throw .interrupted }
        if let spare = isolation.spares.take(serving: serves) {
            (process, memory, served) = ((spare.pid, spare.channel), spare.memory, serves)
            return (spare.pid, spare.channel)
        }
        try start(serving: jobIndex)
        return try greeted()
    }

    /// Starts a worker for `jobIndex` (every job when there is one) without waiting for it to prepare its jobs:
    /// `greeted` waits. A render starts the workers its lanes will take while the first computes frame keys
    /// (`RenderSession.askFrameKeys`).
    func start(serving jobIndex: Int) throws(FrameFailure) {
        let executable = PluginCatalog.workerExecutable
        let serves = serving(jobIndex)
        served = serves
        let arguments =
            isolation.arguments + (serves.map { ["--serve-job", String($0)] } ?? [])
            + (isolation.jobText == nil ? [] : [IsolatedPlanner.textOption])
        // As large as the largest canvas of the jobs; a new one for each worker.
        let sizes = jobs.map(\.spec.canvas).map {
            WorkerReplyCheck.pixelBytes(width: $0.pixelWidth, height: $0.pixelHeight)
        }
        memory = WorkerFrameMemory(count: sizes.max() ?? 0)
        let (pid, channel) = try Self.spawn(
            executable, arguments: arguments, environment: isolation.environment, group: isolation.workers,
            memory: memory?.descriptor)
        memory?.spawned()
        process = (pid, channel)
        guard let text = isolation.jobText else { return }
        do {
            try channel.send(jobText: text)
        } catch {
            throw notStarted()
        }
    }

    /// The worker `start` started, once it said it prepared the same jobs as this process; ended otherwise.
    @discardableResult
    func greeted() throws(FrameFailure) -> (pid_t, WorkerChannel) {
        guard let (pid, channel) = process else { throw .drawing("no worker was started") }
        let hello: String
        do {
            hello = try channel.receive(timeout: Self.startTimeout)
        } catch {
            throw notStarted()
        }
        // A worker of one job (`--serve-job`) prepared only that one.
        let expected = "ready " + (served.map { [jobs[$0]] } ?? jobs).map(\.fingerprint).joined(separator: " ")
        guard hello == expected else {
            stop()
            let reason =
                WorkerReply.reason(hello)
                ?? "a job file or plugin changed after planning (the worker prepared other jobs)"
            throw .output(.io(path: PluginCatalog.workerExecutable, reason: "worker process: \(reason)"))
        }
        return (pid, channel)
    }

    /// What a worker for `jobIndex` serves (`served`): that job when there are several, else every job (nil).
    private func serving(_ jobIndex: Int) -> Int? { jobs.count > 1 ? jobIndex : nil }

    /// Ends the worker that did not start (it died before it read its job or said it was ready) and says so.
    private func notStarted() -> FrameFailure {
        let death = end(nil)
        if isolation.workers.isHalted { return .interrupted }
        return .output(.io(path: PluginCatalog.workerExecutable, reason: "the worker process did not start: \(death)"))
    }

    /// Waits for the worker that died or was killed, forgets it, removes the temporary file it
    /// may have left in `job`'s folder, and says how it ended.
    @discardableResult
    private func reap(_ job: PlannedJob?) -> String {
        guard let (pid, channel) = process else { return "no worker" }
        process = nil
        channel.close()
        let (status, usage) = isolation.workers.reap(pid, killing: false)
        if let job { StagedFile.removeLeftovers(of: pid, in: job.outputDirectory) }
        let cpu =
            Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + 1e-6
            * Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
        return Self.describe(status: status, cpuSeconds: cpu)
    }

    /// Kills the worker's process group and reaps it.
    @discardableResult
    private func end(_ job: PlannedJob?) -> String {
        guard let (pid, _) = process else { return "no worker" }
        // Before the reap: until then the group id cannot belong to another process.
        kill(-pid, SIGKILL)
        return reap(job)
    }

    private func stop() {
        end(nil)
    }

    /// How a worker ended, from its wait status and the CPU time it used: "the worker process was killed by
    /// SIGSEGV (Segmentation fault)" or "the worker process exited with status 1". A worker killed after at
    /// least `WorkerSandbox.cpuSecondsPerFrame` of CPU time reached the sandbox's hard limit.
    static func describe(status: Int32, cpuSeconds: Double = 0) -> String {
        let signal = status & 0x7f
        guard signal != 0 else { return "the worker process exited with status \((status >> 8) & 0xff)" }
        let name = strsignal(signal).map { String(cString: $0) } ?? "signal"
        let short = [
            SIGSEGV: "SIGSEGV", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGKILL: "SIGKILL", SIGFPE: "SIGFPE",
            SIGXCPU: "SIGXCPU", SIGSYS: "SIGSYS",
        ]
        let death = "the worker process was killed by \(short[signal] ?? "signal \(signal)") (\(name))"
        let limit = WorkerSandbox.cpuSecondsPerFrame
        guard signal == SIGKILL || signal == SIGXCPU, cpuSeconds >= limit else { return death }
        let used = JSONValue.number(cpuSeconds.rounded()).serialized()
        return death + " after \(used) s of CPU time: the sandbox's limit (\(JSONValue.number(limit).serialized()) s "
            + "for each frame, a worker at most twice that)"
    }

    /// Starts `executable` with `arguments` and `environment` as a worker of `group`, leading a process group of its
    /// own, with the socket pair on its descriptor 3, /dev/null as its input, this process's standard error as its
    /// output, the memory file `memory` (`WorkerFrameMemory`) on its descriptor 4, and no other descriptor.
    static func spawn(
        _ executable: String, arguments: [String], environment: [String: String], group: WorkerGroup = WorkerGroup(),
        memory: Int32? = nil
    ) throws(FrameFailure) -> (pid_t, WorkerChannel) {
        var sockets: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &sockets) == 0 else {
            throw .output(
                .io(path: executable, reason: "cannot make a socket pair: \(String(cString: strerror(errno)))"))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, sockets[1], WorkerChannel.childDescriptor)
        posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        // Nothing else of this process reaches a worker: a descriptor without O_CLOEXEC (a library's, or one this
        // process inherited) might be a socket of the host's network namespace or a file the plugin must not get.
        // The memory file a worker draws its frames' pixels into, which it closes before loading a plugin.
        if let memory { posix_spawn_file_actions_adddup2(&actions, memory, WorkerFrameMemory.childDescriptor) }
        let last = memory == nil ? WorkerChannel.childDescriptor : WorkerFrameMemory.childDescriptor
        rf_sandbox_spawn_close_from(&actions, last + 1)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        // Workers report a crash in one line; the parent records it. No backtrace per crash.
        var environment = environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let argv = [executable] + arguments
        let envp = environment.map { "\($0.key)=\($0.value)" }
        // From the one long-lived thread: a worker's PR_SET_PDEATHSIG fires when the thread that started it ends.
        let (result, pid) = WorkerSpawnThread.shared.run {
            var pid: pid_t = 0
            let result = withCStrings(argv) { argv in
                withCStrings(envp) { envp in posix_spawn(&pid, executable, &actions, &attributes, argv, envp) }
            }
            return (result, pid)
        }
        close(sockets[1])
        guard result == 0 else {
            close(sockets[0])
            throw .output(.io(path: executable, reason: "cannot start a worker: \(String(cString: strerror(result)))"))
        }
        if !group.started(pid) {
            // The render was halted while this worker started.
            kill(-pid, SIGKILL)
            group.reaping(pid)
            _ = DescriptorIO.retrying { waitpid(pid, nil, 0) }
            close(sockets[0])
            throw .interrupted
        }
        return (pid, WorkerChannel(descriptor: sockets[0]))
    }
}

/// Running workers no lane holds yet (`WorkerProcess.spare`), each with the job it serves; `endAll` kills and reaps
/// those left when the render's frames are done.
final class SpareWorkers: @unchecked Sendable {
    /// Handed from the thread that started it to a lane's, under the lock: one thread uses it at a time.
    struct Spare: @unchecked Sendable {
        var pid: pid_t
        var channel: WorkerChannel
        var memory: WorkerFrameMemory?
        var served: Int?
    }

    private let spares = Locked<[Spare]>([])

    func add(_ spare: Spare) { spares.withLock { $0.append(spare) } }

    /// A spare serving `served` (nil: every job), taken out.
    func take(serving served: Int?) -> Spare? {
        spares.withLock { spares in
            spares.firstIndex { $0.served == served }.map { spares.remove(at: $0) }
        }
    }

    /// Kills and reaps every spare left (`group`: the render's workers).
    func endAll(_ group: WorkerGroup) {
        let left = spares.withLock { spares in
            defer { spares = [] }
            return spares
        }
        for spare in left {
            spare.channel.close()
            group.reap(spare.pid, killing: true)
        }
    }
}

/// Calls `body` with `strings` as a NULL-terminated array of C strings.
private func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T) -> T {
    var copies = strings.map { strdup($0) } + [nil]
    defer { copies.forEach { free($0) } }
    return copies.withUnsafeMutableBufferPointer { buffer in
        guard let base = buffer.baseAddress else {
            // Not reached (the array holds at least the terminating nil), but never a bad pointer.
            let empty = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: 1)
            empty.initialize(to: nil)
            defer { empty.deallocate() }
            return body(empty)
        }
        return body(base)
    }
}
