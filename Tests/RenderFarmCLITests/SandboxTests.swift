import Foundation
import RenderFarm
import Testing

/// The worker sandbox of `render --isolate` (RenderFarm article UntrustedPlugins): the hostile fixture
/// plugin (Tests/Fixtures/hostile_plugin.c, one library per attack) is stopped on each attack
/// with a message naming it, and nothing it tried happened. Each test runs where this machine's
/// kernel offers the layer it shows (CI may be a container without namespaces or Landlock); the
/// `--sandbox require` test holds on either kind of machine.
@Suite("Worker sandbox: hostile plugins stopped and named")
struct SandboxTests {
    static let available = WorkerSandbox.available()
    /// The tests that show what the seccomp filter names run where the kernel offers it.
    static let needsSeccomp = ConditionTrait.enabled(
        if: available.contains(.seccomp),
        "the kernel offers no seccomp filter (article UntrustedPlugins, Kernel limits)")
    static let plugins = ["--plugin-path", Binary.testPluginDirectory + "/hostile"]

    /// A one-frame job of `hostile-ATTACK` in `folder`, writing to `folder/out`, with no retries.
    static func job(_ attack: String, in folder: TemporaryFolder, target: String = "", port: Int = 0) throws -> String {
        try folder.write(
            #"""
            {"duration": 1, "fps": 1, "seed": 1, "retries": 0, "canvas": {"width": 40, "height": 40, "scale": 1},
             "output": {"dir": "out"},
             "layers": [{"effect": "hostile-\#(attack)", "params": {"target": "\#(target)", "port": \#(port)}}]}
            """#, to: "\(attack).json")
    }

    /// Renders `job` in this process, or launched: the workers read RENDERFARM_SANDBOX_SKIP from the environment
    /// they inherit, and write a crash report to the standard error they share with their parent.
    static func render(
        _ job: String, _ extra: [String] = [], environment: [String: String] = [:], launched: Bool = false
    ) throws -> Binary.Result {
        let arguments = ["render", job, "--isolate", "-j", "1", "--progress", "none", "--force"] + plugins + extra
        guard launched || !environment.isEmpty else { return CLI.run(arguments) }
        return try Binary.run(arguments, environment: environment)
    }

    @Test(
        "reading or writing a file outside the job, running a shell, forking: denied, named, nothing happens",
        needsSeccomp,
        arguments: ["read", "write", "exec", "fork"])
    func files(attack: String) throws {
        let folder = try TemporaryFolder()
        let secret = try folder.write("not for plugins\n", to: "secret.txt")
        let target = attack == "read" ? secret : folder.path + "/\(attack)-made-this"
        let job = try Self.job(attack, in: folder, target: target)
        let result = try Self.render(job)
        let denied = [
            "read": "tried to open \(target)", "write": "tried to write \(target)", "exec": "tried to run /bin/sh",
            "fork": "tried to start a process",
        ][attack, default: "?"]
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "frame 0 of \(attack) failed after 1 attempt: plugin \"hostile-\(attack)\" \(denied): "
                    + "denied by the sandbox"), "\(result.stderr)")
        if attack != "read" { #expect(!FileManager.default.fileExists(atPath: target)) }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/out/frame_00000.png"))

        // The same plugin unsandboxed does what it tried: the checks above can fail.
        let trusted = try Self.render(job, ["--sandbox", "off"])
        if attack == "read" {
            #expect(trusted.status == 0, "\(trusted.stderr)")
        } else {
            #expect(FileManager.default.fileExists(atPath: target), "\(trusted.stderr)")
        }
    }

    /// Issue 44, finding 5: under `--isolate` the render takes a layer's input files from its planning worker as
    /// untrusted data; one outside what that worker may read (here another folder's file, which no sandboxed
    /// worker of the job could open) is refused, never read. In process the plugin is trusted and the file hashed.
    @Test(
        "under --isolate an input file a plugin names outside its job's reach is refused (65), in process it is read",
        needsSeccomp)
    func namedInputOutside() throws {
        let folder = try TemporaryFolder()
        let elsewhere = try TemporaryFolder()
        let secret = try elsewhere.write("not for plugins\n", to: "secret.txt")
        let job = try folder.write(
            #"""
            {"duration": 1, "fps": 1, "seed": 1, "retries": 0, "canvas": {"width": 40, "height": 40, "scale": 1},
             "output": {"dir": "out"},
             "layers": [{"effect": "hostile-read", "params": {"target": "\#(secret)", "phase": "input_files"}}]}
            """#, to: "job.json")
        let isolated = try Self.render(job)
        #expect(isolated.status == 65, "\(isolated.stderr)")
        #expect(
            isolated.stderr.contains(
                "the plugin names the input file \(secret), which its sandboxed worker cannot read"),
            "\(isolated.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/out"))
        let trusted = CLI.run(["render", job, "--progress", "none"] + Self.plugins)
        #expect(trusted.status == 0, "\(trusted.stderr)")
        let manifest = (try? String(contentsOfFile: folder.path + "/out/manifest.json", encoding: .utf8)) ?? ""
        #expect(manifest.contains(secret), "\(manifest)")
    }

    /// glibc's malloc opens /proc/sys/vm/overcommit_memory the first time a thread's heap shrinks, at a
    /// moment no plugin chooses (plugin-check of the video plugin died of it in CI).
    @Test(
        "the system files glibc opens on its own are readable in a worker: malloc's overcommit setting",
        needsSeccomp)
    func systemFiles() throws {
        let folder = try TemporaryFolder()
        let job = try Self.job("read", in: folder, target: "/proc/sys/vm/overcommit_memory")
        let result = try Self.render(job)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/out/frame_00000.png"))
    }

    /// libdispatch's thread-pool monitor opens /proc/<tid>/stat of its worker threads once a second while work
    /// waits, and stops the process when it cannot: `render --isolate` lost frames under load.
    @Test(
        "a thread reads its own /proc/<tid>/stat, as libdispatch does, with and without Landlock; not another's",
        needsSeccomp)
    func ownThreads() throws {
        let folder = try TemporaryFolder()
        let own = try Self.job("read", in: folder, target: "own-thread-stat")
        // seccomp's handler opens /proc/self/task/<tid>/stat instead, which Landlock admits.
        for environment in [[:], ["RENDERFARM_SANDBOX_SKIP": "landlock"]] {
            let result = try Self.render(own, environment: environment)
            #expect(result.status == 0, "\(environment): \(result.stderr)")
            #expect(FileManager.default.fileExists(atPath: folder.path + "/out/frame_00000.png"), "\(environment)")
        }
        let other = try Self.render(try Self.job("read", in: folder, target: "/proc/1/stat"))
        #expect(other.status == 1, "\(other.stderr)")
        #expect(other.stderr.contains("tried to open /proc/1/stat: denied by the sandbox"), "\(other.stderr)")
    }

    @Test(
        "connecting to a listener on 127.0.0.1: denied and named, the listener gets no connection",
        needsSeccomp)
    func connect() throws {
        let listener = try Listener()
        let folder = try TemporaryFolder()
        let job = try Self.job("connect", in: folder, port: listener.port)
        let result = try Self.render(job)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr.contains("plugin \"hostile-connect\" tried to open a socket: denied by the sandbox"),
            "\(result.stderr)")
        #expect(!listener.accepted())
        let trusted = try Self.render(job, ["--sandbox", "off"])
        #expect(trusted.status == 0, "\(trusted.stderr)")
        #expect(listener.accepted())
    }

    /// In a render of several jobs each worker serves one job (`worker --serve-job`) and its sandbox reads only
    /// that job's files: a plugin of one job cannot read another job's inputs, which it could when every worker
    /// prepared and read every job of the render.
    @Test(
        "several jobs in one render: a plugin cannot read another job's input files; one lane draws both in turn",
        needsSeccomp)
    func otherJobsFiles() throws {
        let folder = try TemporaryFolder()
        let picture = try Data(contentsOf: URL(fileURLWithPath: CLI.repositoryFile("jobs/assets/star.png")))
        try picture.write(to: folder.url.appendingPathComponent("star.png"))
        let star = folder.path + "/star.png"
        let image = try folder.write(
            #"{"duration": 2, "fps": 1, "seed": 1, "canvas": {"width": 40, "height": 40, "scale": 1}, "#
                + #""output": {"dir": "out-image"}, "layers": [{"effect": "image", "params": {"file": "star.png"}}]}"#,
            to: "image.json")
        let read = try Self.job("read", in: folder, target: star)
        let arguments = ["render", image, read, "--isolate", "-j", "1", "--progress", "none", "--force"] + Self.plugins
        let result = CLI.run(arguments)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr.contains("plugin \"hostile-read\" tried to open \(star): denied by the sandbox"),
            "\(result.stderr)")
        for frame in ["out-image/frame_00000.png", "out-image/frame_00001.png"] {
            #expect(FileManager.default.fileExists(atPath: folder.path + "/" + frame), "\(frame)")
        }
        // Unsandboxed the plugin reads it: the check above can fail.
        let trusted = CLI.run(arguments + ["--sandbox", "off"])
        #expect(trusted.status == 0, "\(trusted.stderr)")
    }

    @Test(
        "allocating without bound: stopped at the address-space limit, which the failure names",
        .enabled(if: available.contains(.limits), "the kernel refuses the sandbox's resource limits"))
    func memory() throws {
        let folder = try TemporaryFolder()
        let job = try Self.job("memory", in: folder)
        let result = try Self.render(job)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("layer 0 (hostile-memory): allocation failed after"), "\(result.stderr)")
        #expect(
            result.stderr.contains("the worker reached the sandbox's address-space limit"), "\(result.stderr)")
    }

    @Test(
        "a plugin that crashes on the allocation the limit failed is named as out of memory, and not as fatal",
        .enabled(if: available.contains(.limits), "the kernel refuses the sandbox's resource limits"))
    func memoryCrash() throws {
        let folder = try TemporaryFolder()
        let job = try Self.job("memory", in: folder, target: "crash")
        let result = try Self.render(job, launched: true)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("frame 0 of memory failed"), "\(result.stderr)")
        let library = Binary.testPluginDirectory + "/hostile/librenderfarm-test-hostile-memory.so"
        #expect(
            result.stderr.contains(
                "renderfarm: plugin hostile-memory (\(library)) crashed with SIGSEGV while rendering frame 0, at the "
                    + "sandbox's address-space limit ("), "\(result.stderr)")
        #expect(result.stderr.contains(" MiB): the plugin ran out of memory (in a worker process of render --isolate"))
        #expect(!result.stderr.contains("fatal:"), "\(result.stderr)")
    }

    @Test(
        "a plugin writing its own replies to the parent's socket ends its worker and fails only its frame",
        arguments: [
            ("hello parent", "sent a reply the protocol does not have: \"hello parent\""),
            ("shared nan", "sent a malformed frame reply: \"shared nan\""),
            ("flood", "sent a line longer than 65536 bytes"),
            // A PNG's header and garbage, as a frame was sent before workers sent pixels: it was recorded `ok`.
            ("png-garbage", "sent a reply the protocol does not have: \"ok \(String(repeating: "0", count: 64)) 1000"),
        ])
    func forgedReplies(reply: String, message: String) throws {
        let folder = try TemporaryFolder()
        let job = try Self.job("reply", in: folder, target: reply)
        let result = try Self.render(job, ["--sandbox", "off"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr.contains("frame 0 of reply failed after 1 attempt: the worker process \(message)"),
            "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/out/frame_00000.png"))
    }

    /// What a worker sends can only be pixels, which this process encodes: a frame the render records `ok` is a
    /// whole PNG of the canvas, whatever the worker sent.
    @Test("a plugin sending garbage pixels as its frame: the render's frame is a whole PNG of them, which decodes")
    func garbagePixels() throws {
        let folder = try TemporaryFolder()
        let job = try Self.job("reply", in: folder, target: "pixels-garbage")
        let result = try Self.render(job, ["--sandbox", "off"])
        #expect(result.status == 0, "\(result.stderr)")
        let frame = folder.path + "/out/frame_00000.png"
        let check = try Tools.run("/usr/bin/pngcheck", ["-q", frame])
        #expect(check.status == 0, "\(check.text)\(check.stderr)")
        let encode = CLI.run(["encode", folder.path + "/out", "--preset", "apng"])
        #expect(encode.status == 0, "\(encode.stderr)")
    }

    @Test(
        "Landlock alone (seccomp left out) keeps the kernel from opening files outside the job",
        .enabled(if: available.contains(.landlock), "the kernel offers no Landlock (Linux 5.13, landlock LSM)"))
    func landlockAlone() throws {
        let folder = try TemporaryFolder()
        let secret = try folder.write("not for plugins\n", to: "secret.txt")
        let skip = ["RENDERFARM_SANDBOX_SKIP": "seccomp"]
        let read = try Self.render(try Self.job("read", in: folder, target: secret), environment: skip)
        #expect(read.stderr.contains("hostile-read): could not read \(secret)"), "\(read.stderr)")
        let made = folder.path + "/made-this"
        let write = try Self.render(try Self.job("write", in: folder, target: made), environment: skip)
        #expect(write.stderr.contains("hostile-write): could not create \(made)"), "\(write.stderr)")
        #expect(!FileManager.default.fileExists(atPath: made))
    }

    @Test(
        "a worker cannot write its job's output folder: the render writes the frames it sends",
        .enabled(if: available.contains(.landlock), "the kernel offers no Landlock (Linux 5.13, landlock LSM)"))
    func outputFolderClosed() throws {
        let folder = try TemporaryFolder()
        let planted = folder.path + "/out/planted.txt"
        let job = try Self.job("write", in: folder, target: planted)
        // Landlock alone: the kernel refuses the plugin's write into the output folder.
        let landlock = try Self.render(job, environment: ["RENDERFARM_SANDBOX_SKIP": "seccomp"])
        #expect(landlock.stderr.contains("hostile-write): could not create \(planted)"), "\(landlock.stderr)")
        #expect(!FileManager.default.fileExists(atPath: planted))
        let strict = try Self.render(job)
        #expect(
            strict.stderr.contains("plugin \"hostile-write\" tried to write \(planted): denied by the sandbox"),
            "\(strict.stderr)")
        #expect(!FileManager.default.fileExists(atPath: planted))
    }

    @Test("--sandbox require renders where the kernel offers every layer and refuses (69) where it does not")
    func require() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            #"""
            {"duration": 2, "fps": 1, "seed": 1, "canvas": {"width": 40, "height": 40, "scale": 1},
             "layers": [{"effect": "test-faults", "params": {}}]}
            """#, to: "job.json")
        let result = CLI.run(
            [
                "render", job, "--isolate", "--sandbox", "require", "--progress", "none", "--plugin-path",
                Binary.testPluginDirectory,
            ])
        if Self.available == .all {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stderr.contains("sandbox"), "\(result.stderr)")
        } else {
            #expect(result.status == 69, "\(result.stderr)")
            #expect(result.stderr.contains("--sandbox require: this kernel does not offer"), "\(result.stderr)")
            let strict = CLI.run(
                [
                    "render", job, "--isolate", "--progress", "none", "--force", "--plugin-path",
                    Binary.testPluginDirectory,
                ])
            #expect(strict.status == 0, "\(strict.stderr)")
            #expect(strict.stderr.contains("the worker sandbox runs without:"), "\(strict.stderr)")
        }
    }

    @Test("--sandbox needs --isolate and one of strict, require, off")
    func usage() throws {
        let folder = try TemporaryFolder()
        let job = try Self.job("read", in: folder)
        let alone = CLI.run(["render", job, "--sandbox", "strict"])
        #expect(alone.status == 64 && alone.stderr.contains("--sandbox needs --isolate"), "\(alone.stderr)")
        let wrong = CLI.run(["render", job, "--isolate", "--sandbox", "loose"])
        #expect(wrong.status == 64 && wrong.stderr.contains("--sandbox expects strict, require or off"))
    }
}

/// A TCP listener on 127.0.0.1 (a port the kernel picks) that says whether anyone connected.
private final class Listener {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 4) == 0
                    && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw CocoaError(.fileWriteUnknown)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        _ = fcntl(descriptor, F_SETFL, O_NONBLOCK)
    }

    deinit { close(descriptor) }

    /// Whether a connection is waiting (accepts and closes it).
    func accepted() -> Bool {
        let connection = accept(descriptor, nil, nil)
        guard connection >= 0 else { return false }
        close(connection)
        return true
    }
}
