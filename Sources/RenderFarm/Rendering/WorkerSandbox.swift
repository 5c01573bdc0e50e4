import CSandbox
import Foundation

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
    package static let all: SandboxLayers = [.network, .limits, .noNewPrivileges, .landlock, .seccomp]

    /// What each layer keeps a plugin from, as `render` names a missing one.
    static let names: [(SandboxLayers, String)] = [
        (
            .network,
            "network namespace (the kernel refuses unprivileged namespaces: TCP is still blocked by Landlock ABI 4+ and seccomp)"
        ),
        (.limits, "resource limits"),
        (.noNewPrivileges, "no_new_privs"),
        (.landlock, "Landlock file rules (file access is checked by the seccomp filter only)"),
        (.seccomp, "seccomp filter (processes, sockets and system calls are not limited)"),
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

    /// Moves the worker into a network namespace with no interfaces; call before threads start.
    package static func isolateNetwork() -> Bool {
        rf_sandbox_isolate_network() == 0
    }

    /// Locks this worker in after its plugins were loaded and created: reads only what the jobs
    /// need, writes only their plugins' cache folders. Returns the layers
    /// applied (with `network` when `isolateNetwork` succeeded) and why others are missing.
    package static func apply(to jobs: [PlannedJob], network: Bool) -> (applied: SandboxLayers, problems: String) {
        let (read, write) = paths(for: jobs)
        let frames = jobs.map { MemoryBudget.workerBytes($0, isolated: true) }.max() ?? 0
        return apply(read: read, write: write, frameBytes: frames, network: network)
    }

    /// Locks this worker in: reads `read` and the system's files (`systemReadPaths`), writes only the folders
    /// `write` and /dev/null; its address space may grow by four times `frameBytes`, at least 1 GiB.
    static func apply(read: [String], write: [String], frameBytes: Int, network: Bool)
        -> (applied: SandboxLayers, problems: String)
    {
        let read = Array(Set(systemReadPaths() + read)).sorted()
        // /dev/null too: libraries silence output by writing there (Chipmunk's banner, CChipmunk).
        let write = Array(Set(write + ["/dev/null"])).sorted()
        var problems = [CChar](repeating: 0, count: 2048)
        let applied = withCStrings(read) { read in
            withCStrings(write) { write in
                rf_sandbox_apply(
                    read, read.count, write, write.count, UInt64(mappedBytes() + max(1 << 30, 4 * frameBytes)),
                    WorkerChannel.childDescriptor,
                    skipped.rawValue, &problems, problems.count)
            }
        }
        let text = String(decoding: problems.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var layers = SandboxLayers(rawValue: applied)
        if network { layers.insert(.network) }
        return (layers, text)
    }

    /// Layers left out on purpose: RENDERFARM_SANDBOX_SKIP=landlock or =seccomp (comma-separated),
    /// for the tests that show what one layer does alone. Not a user option.
    static var skipped: SandboxLayers {
        let words = (ProcessInfo.processInfo.environment["RENDERFARM_SANDBOX_SKIP"] ?? "").split(separator: ",")
        return SandboxLayers(words.compactMap { ["landlock": .landlock, "seccomp": .seccomp][String($0)] })
    }

    /// Allows the next frame `seconds` of CPU time (soft RLIMIT_CPU, moved before each frame).
    package static func allowCPU(seconds: Double) {
        _ = rf_sandbox_allow_cpu(UInt(max(1, seconds.rounded(.up))))
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
    static func systemReadPaths() -> [String] {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? "/nonexistent"
        let cache = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"] ?? home + "/.cache"
        let read = [
            "/usr/lib", "/lib", "/lib64", "/usr/lib64", "/usr/local/lib", "/etc/ld.so.cache",
            "/usr/share/fonts", "/usr/local/share/fonts", "/usr/share/fontconfig", "/etc/fonts",
            "/var/cache/fontconfig", cache + "/fontconfig", home + "/.fonts", home + "/.local/share/fonts",
            "/usr/share/zoneinfo", "/etc/localtime", "/dev/null", "/dev/zero", "/dev/urandom",
            // How many processors (glibc get_nprocs, which rlottie asks).
            "/sys/devices/system/cpu/online", "/sys/devices/system/cpu/possible",
            // glibc's malloc reads it the first time a thread's heap shrinks (a decoder freeing frames on
            // a Dispatch thread): denied, the worker died at a moment no plugin chose.
            "/proc/sys/vm/overcommit_memory",
        ]
        return read + mappedFiles()
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
