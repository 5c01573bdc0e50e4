import Foundation
import Testing

/// `make sandbox-attack` (issue 44; RenderFarm article UntrustedPlugins, "Tests"): every escape and hang found
/// when the sandbox was attacked, and the attacks that already held, as hostile fixture plugins rendered under
/// `render --isolate --sandbox require` as root and as an unprivileged user (nobody). Each attack must be denied,
/// named in the frame's message, the frame failed (exit 1), and the host unharmed: its loopback up with its MTU,
/// file modes, times and attributes as they were, nothing mounted or frozen, no process left over. The last
/// suite renders some of them with `--sandbox off`, as root, to show that these checks see the harm when it is
/// done. Runs as root only where RENDERFARM_SANDBOX_ATTACK=1 (`make sandbox-attack`; CI runs it).
@Suite(
    "make sandbox-attack: hostile plugins under --isolate --sandbox require",
    .enabled(if: AttackScene.enabled, AttackScene.elsewhere))
struct SandboxAttackTests {
    /// One attack: the fixture, its parameters, and the end of the frame's failure message.
    struct Attack: Sendable, CustomStringConvertible {
        var attack: String
        var target = ""
        var call = "stat"
        var denial: String
        var onImage = false
        var description: String { "\(attack) \(target.isEmpty ? "" : target + " ")\(attack == "metadata" ? call : "")" }
    }

    static func denied(_ attack: String, _ what: String) -> String {
        "plugin \"hostile-\(attack)\" tried to \(what): denied by the sandbox"
    }

    static func absent(_ attack: String, _ what: String) -> String {
        "layer 0 (hostile-\(attack)): could not \(what): No such file or directory"
    }

    /// Finding 1 (root keeps root): the host's loopback through the inherited socket or a new one, FIFREEZE,
    /// the immutable flag and fchmod through a read-only descriptor of the plugin's own library.
    static let root: [Attack] = [
        Attack(
            attack: "netdev", target: "down",
            denial: denied("netdev", "use ioctl SIOCSIFFLAGS (set a network interface's flags) on descriptor 3")),
        Attack(
            attack: "netdev", target: "mtu",
            denial: denied("netdev", "use ioctl SIOCSIFMTU (set a network interface's MTU) on descriptor 3")),
        Attack(attack: "netdev", target: "down-new", denial: denied("netdev", "open a socket")),
        Attack(
            attack: "freeze", denial: "plugin \"hostile-freeze\" tried to use ioctl FIFREEZE (freeze a file system)",
            onImage: true),
        Attack(
            attack: "immutable",
            denial: "plugin \"hostile-immutable\" tried to use ioctl FS_IOC_SETFLAGS (set a file's attributes)",
            onImage: true),
        Attack(attack: "chmod", denial: denied("chmod", "change a file's mode"), onImage: true),
    ]

    /// Finding 2 (metadata outside the sandbox) and 6's CPU limit and die-with-parent setting; the attacks
    /// that held before (open, write, sockets, exec, fork, ptrace, mount).
    static let user: [Attack] =
        ["stat", "access", "readlink", "getxattr", "statfs"].map { call in
            Attack(
                attack: "metadata", target: "/etc/shadow", call: call,
                denial: absent("metadata", "\(call) /etc/shadow"))
        } + [
            Attack(
                attack: "sigsys", target: "/etc/shadow",
                denial: denied("sigsys", "replace the sandbox's SIGSYS handler")),
            Attack(attack: "pdeathsig", denial: denied("pdeathsig", "change its parent-death signal")),
            Attack(attack: "rlimit", denial: denied("rlimit", "change its resource limits")),
            Attack(attack: "read", target: "/etc/shadow", denial: denied("read", "open /etc/shadow")),
            Attack(attack: "connect", denial: denied("connect", "open a socket")),
            Attack(attack: "exec", target: "/tmp/never", denial: denied("exec", "run /bin/sh")),
            Attack(attack: "fork", target: "/tmp/never", denial: denied("fork", "start a process")),
            Attack(attack: "ptrace", denial: denied("ptrace", "inspect another process")),
        ]

    @Test(
        "each attack is denied and named, its frame fails, the host is unharmed", arguments: root + user,
        AttackScene.User.allCases)
    func attack(_ attack: Attack, as user: AttackScene.User) throws {
        var scene = try AttackScene(attack.attack)
        scene.target = attack.target
        scene.call = attack.call
        scene.onImage = attack.onImage
        let outcome = try scene.run(as: user)
        outcome.expectDenied("\(attack) as \(user)", attack.denial)
        outcome.expectHostUnharmed("\(attack) as \(user)")
    }

    /// Finding 5: the calls a render makes before any frame ran in its own process. Under `--isolate` a planning
    /// worker creates and verifies the instances, and a frame worker prepares them and computes the frame keys,
    /// each in its sandbox: reading /etc/shadow there is denied and named, as in a frame. Create and verify fail
    /// the job before anything is written (65); prepare stops the render at its first worker (74, as a worker that
    /// cannot start); frame keys a worker cannot give are a warning, and the frames are drawn (0). With
    /// `--sandbox off`, the same plugin reads the file.
    @Test(
        "create, verify, prepare and frame_key run sandboxed: reading /etc/shadow there is denied and named",
        arguments: ["create", "verify", "prepare", "frame_key"], AttackScene.User.allCases)
    func beforeFrames(phase: String, as user: AttackScene.User) throws {
        var scene = try AttackScene("read")
        scene.target = "/etc/shadow"
        scene.phase = phase
        let outcome = try scene.run(as: user)
        let denial = Self.denied("read", "open /etc/shadow")
        let what = "\(phase) as \(user)"
        #expect(outcome.stderr.contains(denial), "\(what): \(outcome.stderr)")
        switch phase {
        case "create", "verify":
            #expect(outcome.status == 65, "\(what): \(outcome.stderr)")
            #expect(outcome.stderr.contains("job.json: \(denial)"), "\(what): \(outcome.stderr)")
            #expect(outcome.journal.isEmpty, "\(what): a job refused at planning wrote a journal")
        case "prepare":
            // No worker can prepare the job: the render stops at its first worker, as when one cannot start (74).
            #expect(outcome.status == 74, "\(what): \(outcome.stderr)")
            #expect(outcome.stderr.contains("worker process: \(denial)"), "\(what): \(outcome.stderr)")
            #expect(!FileManager.default.fileExists(atPath: scene.folder.path + "/out/frame_00000.png"))
        default:
            #expect(outcome.status == 0, "\(what): \(outcome.stderr)")
            #expect(
                outcome.stderr.contains("job: no frame keys (\(denial)); every frame of it is drawn"),
                "\(what): \(outcome.stderr)")
        }
        outcome.expectHostUnharmed(what)
        guard user == .root else { return }
        scene.sandbox = "off"
        let trusted = try scene.run(as: .root)
        #expect(trusted.status == 0 && !trusted.stderr.contains("denied"), "\(phase) unsandboxed: \(trusted.stderr)")
    }

    @Test(
        "utimensat and write on files outside the allowed paths: denied, the file as it was",
        arguments: AttackScene.User.allCases)
    func outsideFiles(as user: AttackScene.User) throws {
        var scene = try AttackScene("utime")
        let file = try scene.folder.write("outside\n", to: "outside.txt")
        chmod(file, 0o666)
        var old = [timespec(tv_sec: 978_307_200, tv_nsec: 0), timespec(tv_sec: 978_307_200, tv_nsec: 0)]
        utimensat(AT_FDCWD, file, &old, 0)
        scene.target = file
        scene.watch = file
        let outcome = try scene.run(as: user)
        outcome.expectDenied("utime as \(user)", Self.denied("utime", "change a file's times"))
        outcome.expectHostUnharmed("utime as \(user)")

        var write = try AttackScene("write")
        write.target = write.folder.path + "/made-this"
        let written = try write.run(as: user)
        written.expectDenied("write as \(user)", Self.denied("write", "write \(write.target)"))
        #expect(!FileManager.default.fileExists(atPath: write.target))
    }

    /// Finding 1: the socket a plugin brought the loopback down with was inherited; a worker gets descriptors
    /// 0 to 3 only (3: its socket to the render), whatever the render had open.
    @Test("a descriptor the render had open does not reach the worker", arguments: AttackScene.User.allCases)
    func descriptors(as user: AttackScene.User) throws {
        var scene = try AttackScene("metadata")
        scene.inherit = try scene.folder.write("the render's\n", to: "inherited.txt")
        scene.call = "descriptor"
        scene.target = "7"
        let outcome = try scene.run(as: user)
        outcome.expectDenied(
            "descriptor 7 as \(user)", "layer 0 (hostile-metadata): descriptor 7 is not open: Bad file descriptor")
        outcome.expectHostUnharmed("descriptor 7 as \(user)")
    }

    @Test("mounting on a folder: denied, nothing mounted", arguments: AttackScene.User.allCases)
    func mount(as user: AttackScene.User) throws {
        var scene = try AttackScene("mount")
        scene.target = scene.folder.path + "/mountpoint"
        try FileManager.default.createDirectory(atPath: scene.target, withIntermediateDirectories: true)
        scene.mounted = scene.target
        let outcome = try scene.run(as: user)
        outcome.expectDenied("mount as \(user)", Self.denied("mount", "change its mounts or namespaces"))
        outcome.expectHostUnharmed("mount as \(user)")
    }

    /// Finding 4: a symbolic link under a path the plugin may read leads to /etc (/usr/lib/ssl/private is
    /// /etc/ssl/private on Debian; ~/.fonts/escape is one the test makes): the seccomp check sees a path under
    /// the allowed one, the worker's root has no /etc/shadow.
    @Test("/etc/shadow through a chain of symbolic links: not there", arguments: AttackScene.User.allCases)
    func symlinkChain(as user: AttackScene.User) throws {
        var scene = try AttackScene("read")
        try FileManager.default.createDirectory(
            atPath: scene.folder.path + "/.fonts", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: scene.folder.path + "/.fonts/escape", withDestinationPath: "/etc")
        var targets = [scene.folder.path + "/.fonts/escape/shadow"]
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: "/usr/lib/ssl/private")) != nil {
            targets.append("/usr/lib/ssl/private/../../shadow")
        }
        for target in targets {
            scene.target = target
            let outcome = try scene.run(as: user)
            outcome.expectDenied("\(target) as \(user)", Self.absent("read", "read \(target)"))
            outcome.expectHostUnharmed("\(target) as \(user)")
        }
    }

    /// Finding 4: without Landlock (and without seccomp's path check) the worker's root alone keeps /etc out
    /// of reach; a plugin's own SIGSYS handler is refused whatever the other layers.
    @Test(
        "without Landlock, and without seccomp too, /etc/shadow is not there: the worker's root holds",
        arguments: AttackScene.User.allCases)
    func withoutLandlock(as user: AttackScene.User) throws {
        for skip in ["landlock", "landlock,seccomp"] {
            var scene = try AttackScene("read")
            scene.sandbox = "strict"
            scene.environment = ["RENDERFARM_SANDBOX_SKIP": skip]
            scene.target = "/etc/shadow"
            let outcome = try scene.run(as: user)
            let denial =
                skip.contains("seccomp")
                ? Self.absent("read", "read /etc/shadow") : Self.denied("read", "open /etc/shadow")
            outcome.expectDenied("read without \(skip) as \(user)", denial)
            outcome.expectHostUnharmed("read without \(skip) as \(user)")
        }
        var sigsys = try AttackScene("sigsys")
        sigsys.sandbox = "strict"
        sigsys.environment = ["RENDERFARM_SANDBOX_SKIP": "landlock"]
        sigsys.target = "/etc/shadow"
        let outcome = try sigsys.run(as: user)
        outcome.expectDenied(
            "sigsys without Landlock as \(user)", Self.denied("sigsys", "replace the sandbox's SIGSYS handler"))
        outcome.expectHostUnharmed("sigsys without Landlock as \(user)")
    }
}

/// Finding 6 (hangs and leftovers): a plugin that spins for ever costs its frame, not the render.
@Suite("make sandbox-attack: hangs end", .enabled(if: AttackScene.enabled, AttackScene.elsewhere))
struct SandboxHangTests {
    @Test("a frame that spins past --frame-timeout fails; its worker is killed", arguments: AttackScene.User.allCases)
    func frameTimeout(as user: AttackScene.User) throws {
        var scene = try AttackScene("spin")
        scene.arguments = ["--frame-timeout", "2"]
        let outcome = try scene.run(as: user)
        outcome.expectDenied("spin as \(user)", "took longer than --frame-timeout 2 s; its worker process was killed")
        outcome.expectHostUnharmed("spin as \(user)")
    }

    @Test(
        "a frame that spins reaches the worker's hard CPU limit, which the message names",
        arguments: AttackScene.User.allCases)
    func cpuLimit(as user: AttackScene.User) throws {
        var scene = try AttackScene("spin")
        scene.environment = ["RENDERFARM_WORKER_CPU_SECONDS": "1"]
        let outcome = try scene.run(as: user)
        outcome.expectDenied("spin as \(user)", "the worker process was killed by SIGKILL (Killed) after ")
        #expect(outcome.stderr.contains("of CPU time: the sandbox's limit (1 s for each frame"), "\(outcome.stderr)")
        outcome.expectHostUnharmed("spin as \(user)")
    }

    @Test(
        "SIGTERM while a frame hangs: 10 s of grace, then its worker is killed; exit 130, journal intact",
        arguments: AttackScene.User.allCases)
    func stopped(as user: AttackScene.User) throws {
        var scene = try AttackScene("spin")
        scene.frame = 2
        scene.frames = 4
        scene.signal = "TERM@4"
        let outcome = try scene.run(as: user)
        #expect(outcome.status == 130, "\(outcome.stderr)")
        #expect(
            outcome.stderr.contains("interrupted: the journal and manifest record what was finished"),
            "\(outcome.stderr)")
        let seconds = try #require(outcome.afterSignal)
        #expect(seconds >= 9 && seconds < 20, "ended \(seconds) s after SIGTERM")
        let entries = outcome.journal.split(separator: "\n")
        #expect(entries.count == 2 && entries.allSatisfy { $0.contains("\"status\":\"ok\"") }, "\(outcome.journal)")
        #expect(!outcome.journal.contains("\"index\":2"), "\(outcome.journal)")
        outcome.expectHostUnharmed("stopped spin as \(user)")
    }

    @Test(
        "a render killed with SIGKILL while a frame hangs leaves no worker behind", arguments: AttackScene.User.allCases
    )
    func killed(as user: AttackScene.User) throws {
        var scene = try AttackScene("spin")
        scene.signal = "KILL@3"
        let outcome = try scene.run(as: user)
        #expect(outcome.status == 137, "\(outcome.stderr)")
        #expect(outcome.leftovers.isEmpty, "workers left over: \(outcome.leftovers)")
    }
}

/// The checks above see harm when it is done: the same plugins with `--sandbox off` (trusted code), as root.
@Suite("make sandbox-attack: unsandboxed, the harm shows", .enabled(if: AttackScene.enabled, AttackScene.elsewhere))
struct SandboxAttackControlTests {
    @Test("--sandbox off: the loopback goes down, its MTU changes, modes, times and attributes change")
    func harmShows() throws {
        for target in ["down", "mtu"] {
            var scene = try AttackScene("netdev")
            scene.target = target
            scene.sandbox = "off"
            let outcome = try scene.run(as: .root)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(
                target == "down" ? !outcome.loopback.contains(",UP,") : outcome.loopback.contains(" mtu 1280 "),
                "\(outcome.loopback)")
        }
        for attack in ["chmod", "immutable"] {
            var scene = try AttackScene(attack)
            scene.onImage = true
            scene.sandbox = "off"
            let outcome = try scene.run(as: .root)
            #expect(outcome.status == 0 && outcome.before != outcome.after, "\(attack): \(outcome.stderr)")
        }
        var utime = try AttackScene("utime")
        let file = try utime.folder.write("outside\n", to: "outside.txt")
        var old = [timespec(tv_sec: 978_307_200, tv_nsec: 0), timespec(tv_sec: 978_307_200, tv_nsec: 0)]
        utimensat(AT_FDCWD, file, &old, 0)
        utime.target = file
        utime.watch = file
        utime.sandbox = "off"
        let touched = try utime.run(as: .root)
        #expect(touched.status == 0 && touched.before != touched.after, "\(touched.stderr)")
        var mount = try AttackScene("mount")
        mount.target = mount.folder.path + "/mountpoint"
        try FileManager.default.createDirectory(atPath: mount.target, withIntermediateDirectories: true)
        mount.mounted = mount.target
        mount.sandbox = "off"
        #expect(try mount.run(as: .root).mounted)
        for call in ["stat", "getxattr"] {
            var metadata = try AttackScene("metadata")
            metadata.target = "/etc/shadow"
            metadata.call = call
            metadata.sandbox = "off"
            #expect(try metadata.run(as: .root).status == 0)
        }
    }
}
