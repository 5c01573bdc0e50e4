import Foundation
import Testing

/// One render of a hostile fixture plugin (Tests/Fixtures/hostile_plugin.c) for `make sandbox-attack`, and what the
/// host looked like afterwards. The test process (root) runs Tests/Fixtures/sandbox_attack_scene.sh inside
/// `unshare --net --mount`: the scene's loopback and mounts are the "host" an attack could harm, so that a sandbox
/// that fails the test harms neither the machine nor the tests running beside it.
struct AttackScene {
    enum User: String, CaseIterable, Sendable, CustomStringConvertible {
        case root, nobody
        var description: String { rawValue }
    }

    /// What a scene left: the render's exit status and output, the host's loopback, the watched file before and
    /// after, and any process of the scene still running (killed once counted).
    struct Outcome {
        var status: Int32?
        var stderr: String
        var loopback: String
        var before: String
        var after: String
        var frozen: Bool
        var mounted: Bool
        /// The render still ran at the scene's limit and was killed.
        var killed: Bool
        var leftovers: [Int32]
        /// Seconds from the scene's signal to the render's end (nil: no signal).
        var afterSignal: Double?
        var journal: String
    }

    /// `make sandbox-attack` sets RENDERFARM_SANDBOX_ATTACK=1; it runs as root (it makes namespaces and mounts).
    static let enabled = ProcessInfo.processInfo.environment["RENDERFARM_SANDBOX_ATTACK"] == "1" && geteuid() == 0
    /// Why the attack suites skip elsewhere (`make test`).
    static let elsewhere: Comment = "needs make sandbox-attack, as root"

    /// The renderfarm binary the scenes run, copied where any user may run it (the checkout may be private):
    /// this build's, or RENDERFARM_ATTACK_BINARY (another build's, such as one before a fix).
    static let binary: String = {
        let source = ProcessInfo.processInfo.environment["RENDERFARM_ATTACK_BINARY"] ?? Binary.executable
        // The copies of earlier runs whose test process has ended.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []
        where name.hasPrefix("renderfarm-attack-") {
            if let pid = Int32(name.dropFirst(18)), kill(pid, 0) != 0 {
                try? FileManager.default.removeItem(atPath: "/tmp/" + name)
            }
        }
        let folder = "/tmp/renderfarm-attack-\(getpid())"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let copy = folder + "/renderfarm"
        try? FileManager.default.removeItem(atPath: copy)
        try? Tools.copyExecutable(source, to: copy)
        chmod(folder, 0o755)
        chmod(copy, 0o755)
        return copy
    }()

    static let script = Binary.packageRoot.appendingPathComponent("Tests/Fixtures/sandbox_attack_scene.sh").path

    let folder: TemporaryFolder
    let attack: String
    var target = ""
    var call = "stat"
    /// The only frame that attacks (-1: every frame) and the job's length in frames (at 1 fps).
    var frame = -1
    /// The call that attacks: render, or create, verify, prepare or frame_key (the calls before any frame).
    var phase = "render"
    var frames = 1
    var retries = 0
    var sandbox = "require"
    var arguments: [String] = []
    var environment: [String: String] = [:]
    /// A file whose mode, time and attributes must not change.
    var watch: String?
    /// The plugin lives on an ext4 file system of its own (and is the watched file).
    var onImage = false
    /// "TERM@3": SIGTERM to the render 3 s after it started.
    var signal: String?
    /// Seconds after which a render still running is killed (SIGKILL).
    var limit = 60
    /// A folder that must not become a mount point.
    var mounted: String?
    /// A file the render gets open on descriptor 7, as a library might leave one without O_CLOEXEC.
    var inherit: String?

    /// A scene of `attack` in a folder of its own that any user may write, whose HOME it is.
    init(_ attack: String) throws {
        self.attack = attack
        folder = try TemporaryFolder()
        chmod(folder.path, 0o777)
    }

    var library: String { Binary.testPluginDirectory + "/hostile/librenderfarm-test-hostile-\(attack).so" }

    /// Renders the scene's job as `user`.
    func run(as user: User) throws -> Outcome {
        let run = folder.path + "/\(user)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: run + "/plugins", withIntermediateDirectories: true)
        chmod(run, 0o777)
        chmod(run + "/plugins", 0o755)
        // A copy: an attack on its own library must not reach the build's.
        let plugin = run + "/plugins/" + (library as NSString).lastPathComponent
        try FileManager.default.copyItem(atPath: library, toPath: plugin)
        chmod(plugin, 0o755)
        let job = run + "/job.json"
        try """
        {"duration": \(frames), "fps": 1, "seed": 1, "retries": \(retries),
         "canvas": {"width": 40, "height": 40, "scale": 1}, "output": {"dir": "out"},
         "layers": [{"effect": "hostile-\(attack)",
                     "params": {"target": "\(target)", "call": "\(call)", "frame": \(frame), "phase": "\(phase)"}}]}
        """.write(toFile: job, atomically: true, encoding: .utf8)
        chmod(job, 0o644)
        var scene = [
            "RF_BINARY": Self.binary, "RF_JOB": job, "RF_PLUGINS": run + "/plugins", "RF_OUT": run,
            "RF_USER": user.rawValue, "RF_SANDBOX": sandbox, "RF_ARGS": arguments.joined(separator: " "),
            "RF_LIMIT": String(limit), "HOME": folder.path, "SWIFT_BACKTRACE": "enable=no",
        ]
        if let watch { scene["RF_WATCH"] = watch }
        if let signal { scene["RF_SIGNAL"] = signal }
        if let mounted { scene["RF_MOUNTED"] = mounted }
        if let inherit { scene["RF_INHERIT"] = inherit }
        if onImage {
            let image = run + "/disk.img"
            _ = FileManager.default.createFile(atPath: image, contents: nil)
            try FileHandle(forWritingAtPath: image).map { try $0.truncate(atOffset: 16 << 20) }
            let made = try Tools.run("/sbin/mkfs.ext4", ["-q", image])
            try #require(made.status == 0, "mkfs.ext4: \(made.stderr)")
            scene["RF_IMAGE"] = image
            scene["RF_MOUNT"] = run + "/disk"
            scene["RF_LIBRARY"] = plugin
        }
        let environment = ProcessInfo.processInfo.environment.merging(environment.merging(scene) { $1 }) { $1 }
        let status = try #require(
            Self.spawn(["/usr/bin/unshare", "--net", "--mount", "/bin/sh", Self.script], environment, limit + 60),
            "the scene of \(attack) did not end")
        try #require(status == 0, "the scene of \(attack) failed: \(status)")
        let read = { (name: String) in (try? String(contentsOfFile: run + "/" + name, encoding: .utf8)) ?? "" }
        let time = { (name: String) in Double(read(name).trimmingCharacters(in: .whitespacesAndNewlines)) }
        return Outcome(
            status: Int32(read("status").trimmingCharacters(in: .whitespacesAndNewlines)), stderr: read("stderr"),
            loopback: read("loopback"), before: read("before"), after: read("after"), frozen: !read("frozen").isEmpty,
            mounted: !read("mounted").isEmpty, killed: !read("killed").isEmpty,
            leftovers: Self.leftovers(of: run),
            afterSignal: time("signalled").flatMap { start in time("ended").map { $0 - start } },
            journal: read("out/renderfarm.journal.jsonl"))
    }

    /// Processes whose command line names `folder` (a worker of the scene's render), killed once found.
    static func leftovers(of folder: String) -> [Int32] {
        usleep(300_000)
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        let found = processes.compactMap(Int32.init).filter { pid in
            // /proc says its files are empty: read to the end.
            let file = FileHandle(forReadingAtPath: "/proc/\(pid)/cmdline")
            guard let data = try? file?.readToEnd() else { return false }
            return String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self).contains(folder)
        }
        for pid in found { kill(pid, SIGKILL) }
        return found
    }

    /// Runs `arguments` and waits for it at most `timeout` seconds (nil: it was killed then); its exit status.
    /// Not Foundation's Process, which waits until every process holding its child's descriptors ends: a worker
    /// left over by a sandbox that failed would keep the test waiting.
    static func spawn(_ arguments: [String], _ environment: [String: String], _ timeout: Int) -> Int32? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[0], &actions, nil, argv, envp) == 0 else { return nil }
        let deadline = ContinuousClock.now + .seconds(timeout)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if ContinuousClock.now > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                return nil
            }
            usleep(20_000)
        }
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}

extension AttackScene.Outcome {
    /// The host as the scene left it: its loopback up with its MTU, the watched file as it was, nothing mounted,
    /// frozen or left running.
    func expectHostUnharmed(_ what: String) {
        #expect(loopback.contains("<LOOPBACK,UP,") && loopback.contains(" mtu 65536 "), "\(what): \(loopback)")
        #expect(before == after, "\(what): the watched file changed: \(before) -> \(after)")
        #expect(!frozen && !mounted, "\(what): frozen \(frozen), mounted \(mounted)")
        #expect(!killed, "\(what): the render still ran at the scene's limit")
        #expect(leftovers.isEmpty, "\(what): processes left over: \(leftovers)")
    }

    /// The frame failed (exit 1) with `denial` named in its message.
    func expectDenied(_ attack: String, _ denial: String) {
        #expect(status == 1, "\(attack): \(status.map(String.init) ?? "-") \(stderr)")
        #expect(
            stderr.contains("frame 0 of job failed after 1 attempt: \(denial)")
                && stderr.contains("job: 1 frame failed: 0"), "\(attack): \(stderr)")
    }
}
