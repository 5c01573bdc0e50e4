import CSandbox
import Foundation
import Locking

/// `render --sandbox`: how the workers of `render --isolate` are locked in (article UntrustedPlugins).
package enum SandboxMode: String, CaseIterable, Sendable {
    /// Every layer the kernel offers; the render says once which are missing.
    case strict
    /// Every layer, or no render (exit 69).
    case require
    /// Workers run with the user's rights (crash and hang containment only).
    case off
}

/// The protections of a sandboxed worker, each applied where the kernel offers it.
package struct SandboxLayers: OptionSet, Sendable {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }

    package static let network = SandboxLayers(rawValue: Int32(RF_SANDBOX_NETWORK))
    package static let limits = SandboxLayers(rawValue: Int32(RF_SANDBOX_LIMITS))
    package static let noNewPrivileges = SandboxLayers(rawValue: Int32(RF_SANDBOX_NO_NEW_PRIVS))
    package static let landlock = SandboxLayers(rawValue: Int32(RF_SANDBOX_LANDLOCK))
    package static let seccomp = SandboxLayers(rawValue: Int32(RF_SANDBOX_SECCOMP))
    package static let userNamespace = SandboxLayers(rawValue: Int32(RF_SANDBOX_USER_NAMESPACE))
    package static let mountNamespace = SandboxLayers(rawValue: Int32(RF_SANDBOX_MOUNT_NAMESPACE))
    package static let capabilities = SandboxLayers(rawValue: Int32(RF_SANDBOX_CAPABILITIES))
    package static let all: SandboxLayers = [
        .userNamespace, .mountNamespace, .network, .limits, .noNewPrivileges, .capabilities, .landlock, .seccomp,
    ]

    /// What each layer keeps a plugin from, as `render` names a missing one.
    static let names: [(SandboxLayers, String)] = [
        (
            .userNamespace,
            "user namespace (the kernel refuses unprivileged user namespaces: as root, the worker keeps root's user "
                + "id, without capabilities, and owns root's files)"
        ),
        (
            .mountNamespace,
            "mount namespace (the worker sees the host's file system: Landlock alone limits what it opens, and "
                + "stat, access, readlink, getxattr and statfs reach every path)"
        ),
        (
            .network,
            "network namespace (the kernel refuses unprivileged namespaces: TCP is still blocked by Landlock ABI 4+ "
                + "and seccomp)"
        ),
        (.limits, "resource limits"),
        (.noNewPrivileges, "no_new_privs"),
        (.capabilities, "dropped capabilities"),
        (.landlock, "Landlock file rules (file access is limited by the worker's root only)"),
        (.seccomp, "seccomp filter (processes, sockets, ioctl and system calls are not limited)"),
    ]

    /// The names of the layers in `self`, in a fixed order.
    package var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }
}

/// The worker's side of the sandbox, and the parent's look at what the kernel offers.
package enum WorkerSandbox {
    /// The layers this machine's kernel offers a worker (the parent asks once, before a render).
    package static func available() -> SandboxLayers {
        SandboxLayers(rawValue: rf_sandbox_probe())
    }

    /// Whether this process runs under AddressSanitizer or ThreadSanitizer (`make sanitize`): their
    /// runtimes reserve terabytes of shadow address space and open their report files and /proc
    /// when they report, which the sandbox would turn into denials; such workers are not sandboxed.
    package static var underSanitizer: Bool {
        let handle = dlopen(nil, RTLD_NOW)
        defer { if let handle { dlclose(handle) } }
        let runtimes: [String] = ["__asan_init", "__tsan_init"]
        return runtimes.contains { name in dlsym(handle, name) != nil }
    }

    /// Moves the worker into its namespaces (user, mount, network) and drops the capabilities it does not need
    /// to build its root; call first, while the process has one thread (a user namespace needs that). Returns
    /// the namespaces entered and why others are missing.
    package static func enter() -> (entered: SandboxLayers, problems: String) {
        var problems = [CChar](repeating: 0, count: 1024)
        let entered = rf_sandbox_enter(&problems, problems.count)
        return (SandboxLayers(rawValue: entered), text(problems))
    }

    /// Locks this worker in once its plugin libraries are loaded and before any instance is created (the first of
    /// two stages): from here on it reads only what `scope` allows — what its jobs may reach — so that the media
    /// its plugins' `create` and `verify` parse are parsed inside. `narrow(to:)` takes away what the instances turn
    /// out not to need. Returns the layers in force (with the namespaces `enter` entered) and why others are
    /// missing.
    package static func lockIn(_ scope: WorkerScope, entered: SandboxLayers) -> (
        applied: SandboxLayers, problems: String
    ) {
        // The folders of the libraries loaded so far too: the dynamic loader looks there first (their run paths:
        // the Swift runtime's folder) for a library a plugin opens later.
        let folders = Array(Set((mappedFiles() + loadedLibraries()).map { ($0 as NSString).deletingLastPathComponent }))
        libraryFolders.withLock { $0 = folders }
        return apply(
            read: scope.read + folders, write: scope.write, frameBytes: scope.frameBytes,
            cpuSeconds: 2 * cpuSecondsPerFrame, entered: entered, narrowingLater: true)
    }

    /// The second stage, once the jobs are planned and their layers prepared: the worker reads only its plugin
    /// libraries, the files their instances named (ABI `input_files`), the libraries it mapped and the system's
    /// files, and writes only the plugins' cache folders that exist (Landlock, and the seccomp handler's open
    /// check); no further Landlock call is allowed. The root the first stage built stays. Returns the layers
    /// narrowed (`.landlock`, `.seccomp`) and why others were not.
    package static func narrow(to jobs: [PlannedJob]) -> (narrowed: SandboxLayers, problems: String) {
        let (own, write) = paths(for: jobs)
        let mapped = firstStageMaps.withLock { $0 } + libraryFolders.withLock { $0 } + loadedLibraries()
        let read = outermost(systemReadPaths(mapped: mapped) + own)
        let writable = Array(Set(write + ["/dev/null"])).sorted()
        var problems = [CChar](repeating: 0, count: 4096)
        let narrowed = withCStrings(read) { read in
            withCStrings(writable) { write in
                rf_sandbox_narrow(read, read.count, write, write.count, &problems, problems.count)
            }
        }
        return (SandboxLayers(rawValue: narrowed), text(problems))
    }

    /// The files mapped when the first stage locked the worker in (its root has no /proc to ask later), and
    /// their folders.
    private static let firstStageMaps = Locked<[String]>([])
    private static let libraryFolders = Locked<[String]>([])

    /// Locks this worker in: reads `read` and the system's files (`systemReadPaths`), writes only the folders
    /// `write` and /dev/null; its address space may grow by four times `frameBytes`, at least 1 GiB; it may use
    /// `cpuSeconds` more of CPU time. `narrowingLater`: the Landlock calls stay allowed for `narrow(to:)`.
    static func apply(
        read: [String], write: [String], frameBytes: Int, cpuSeconds: Double, entered: SandboxLayers,
        narrowingLater: Bool = false
    ) -> (applied: SandboxLayers, problems: String) {
        let mapped = mappedFiles()
        firstStageMaps.withLock { $0 = mapped }
        let read = outermost(systemReadPaths(mapped: mapped) + read)
        // /dev/null too: libraries silence output by writing there (Chipmunk's banner, CChipmunk).
        let write = Array(Set(write + ["/dev/null"])).sorted()
        var problems = [CChar](repeating: 0, count: 4096)
        let applied = withCStrings(read) { read in
            withCStrings(write) { write in
                rf_sandbox_apply(
                    read, read.count, write, write.count, UInt64(mappedBytes() + max(1 << 30, 4 * frameBytes)),
                    UInt(max(1, cpuSeconds.rounded(.up))), WorkerChannel.childDescriptor, entered.rawValue,
                    skipped.rawValue, narrowingLater ? 1 : 0, &problems, problems.count)
            }
        }
        return (SandboxLayers(rawValue: applied), text(problems))
    }

    /// `paths` without those inside another's folder (which every layer grants whole), sorted: the seccomp
    /// handler's table holds a few hundred paths, a worker maps more files than that. A path is left out only when
    /// it lies under the folder both as written and once resolved (a link in it leads no elsewhere).
    static func outermost(_ paths: [String]) -> [String] {
        let entries = Array(Set(paths)).map { (path: $0, real: realPath($0)) }
        let folders = entries.filter { entry in
            var isFolder: ObjCBool = false
            return entry.real != "/" && FileManager.default.fileExists(atPath: entry.real, isDirectory: &isFolder)
                && isFolder.boolValue
        }
        return entries.filter { entry in
            !folders.contains { folder in
                entry.path.hasPrefix(folder.path + "/") && entry.real.hasPrefix(folder.real + "/")
            }
        }.map(\.path).sorted()
    }

    private static func text(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Layers left out on purpose: RENDERFARM_SANDBOX_SKIP=landlock, =seccomp or =mount (comma-separated), for
    /// the tests that show what the other layers do alone. Not a user option.
    static var skipped: SandboxLayers {
        let words = (ProcessInfo.processInfo.environment["RENDERFARM_SANDBOX_SKIP"] ?? "").split(separator: ",")
        let layers: [String: SandboxLayers] = ["landlock": .landlock, "seccomp": .seccomp, "mount": .mountNamespace]
        return SandboxLayers(words.compactMap { layers[String($0)] })
    }

    /// CPU time every frame of a sandboxed worker may take: the worker's hard limit is twice this, and a worker
    /// with less than this left is replaced before its next frame (`hasTimeForAFrame`). 600 s;
    /// RENDERFARM_WORKER_CPU_SECONDS sets another for the tests that reach it. Not a user option.
    package static let cpuSecondsPerFrame: Double = {
        let text = ProcessInfo.processInfo.environment["RENDERFARM_WORKER_CPU_SECONDS"] ?? ""
        return Double(text).flatMap { $0 >= 1 ? $0 : nil } ?? 600
    }()

    /// Whether this worker may still spend `cpuSecondsPerFrame` of CPU time before its hard limit (a worker that
    /// was not locked in always may).
    package static func hasTimeForAFrame() -> Bool {
        let left = rf_sandbox_cpu_left()
        return left < 0 || Double(left) >= cpuSecondsPerFrame
    }

    /// Said after a failed frame when the worker's address space reached the sandbox's limit
    /// (the plugin's allocation failed for that reason); nil otherwise.
    package static func memoryNote() -> String? {
        var limit: UInt64 = 0
        guard rf_sandbox_near_address_limit(&limit) != 0 else { return nil }
        return "the worker reached the sandbox's address-space limit (\(limit >> 20) MiB): the plugin ran out of memory"
    }

    /// What a worker reads and writes once locked in besides `systemReadPaths`: the plugin libraries and
    /// the jobs' input files; it writes only the jobs' cache folders (`renderfarm.cache`, where it exists).
    static func paths(for jobs: [PlannedJob]) -> (read: [String], write: [String]) {
        var read: [String] = []
        for job in jobs {
            read += job.plugins.map(\.path)
            read += job.inputs.compactMap { $0.read?.path }
        }
        // Frames are written by the parent (`WorkerFrameTransfer`): a worker writes only its plugins' caches.
        return (read, jobs.map(\.cacheFolder))
    }

    /// What every sandboxed worker reads: every file mapped into the process (the Swift runtime, system
    /// libraries), the system's library folders (libraries a plugin opens later), fonts and their
    /// configuration, time zones.
    static func systemReadPaths(mapped: [String]? = nil) -> [String] {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? "/nonexistent"
        let cache = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"] ?? home + "/.cache"
        let read = [
            "/usr/lib", "/lib", "/lib64", "/usr/lib64", "/usr/local/lib", "/etc/ld.so.cache",
            "/usr/share/fonts", "/usr/local/share/fonts", "/usr/share/fontconfig", "/etc/fonts",
            "/var/cache/fontconfig", cache + "/fontconfig", home + "/.fontconfig", home + "/.fonts",
            home + "/.local/share/fonts",
            "/usr/share/zoneinfo", "/etc/localtime", "/dev/null", "/dev/zero", "/dev/urandom",
            // How many processors (glibc get_nprocs, which rlottie asks).
            "/sys/devices/system/cpu/online", "/sys/devices/system/cpu/possible",
            // glibc's malloc reads it the first time a thread's heap shrinks (a decoder freeing frames on
            // a Dispatch thread): denied, the worker died at a moment no plugin chose.
            "/proc/sys/vm/overcommit_memory",
            // What libraries read on first use, which is now inside the sandbox (a plugin's `create`): libselinux
            // (with Pango) the file systems, libnuma (with libav) the process's status and the memory nodes.
            "/proc/filesystems", "/proc/self/status", "/sys/devices/system/node",
            // The C library's locale aliases and message catalogues, which glib's messages read (librsvg, with
            // the image effect's SVG files).
            "/usr/share/locale",
            // The text effect's fonts: the files of the Noto packages, as dpkg lists them (article TextEffect).
            "/var/lib/dpkg/info/fonts-noto-core.list", "/var/lib/dpkg/info/fonts-noto-color-emoji.list",
            "/var/lib/dpkg/info/fonts-noto-cjk.list",
        ]
        return read + (mapped ?? mappedFiles())
    }

    /// The shared objects loaded into this process (`dl_iterate_phdr`, which needs no /proc).
    static func loadedLibraries() -> [String] {
        var text = [CChar](repeating: 0, count: 1 << 18)
        let used = rf_sandbox_loaded_libraries(&text, text.count)
        return String(decoding: text.prefix(used).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .split(separator: "\n").map(String.init)
    }

    /// Every file mapped into this process (/proc/self/maps): its executable and libraries.
    static func mappedFiles() -> [String] {
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return [] }
        return maps.split(separator: "\n").compactMap { line in
            guard let slash = line.firstIndex(of: "/") else { return nil }
            let path = String(line[slash...])
            return path.hasSuffix(" (deleted)") ? nil : path
        }
    }

    /// What this process has mapped now, in bytes (/proc/self/statm): the base of its address-space limit.
    static func mappedBytes() -> Int {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        return (statm.split(separator: " ").first.flatMap { Int($0) } ?? 0) * page
    }
}

/// Calls `body` with `strings` as C strings (valid during the call).
private func withCStrings<T>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return body(copies.map { UnsafePointer($0) })
}

extension FrameFailure {
    /// A failure of the frame's drawing (not of writing the output).
    var isDrawing: Bool {
        if case .output = self { return false }
        return true
    }
}
