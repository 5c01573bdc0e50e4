import Foundation
import RenderFarm
import Testing

/// `plugin check` runs the plugin in a sandboxed worker by default (RenderFarm article UntrustedPlugins):
/// the hostile fixture plugin is stopped with the same named message as under `render --isolate`, and a
/// sound plugin gets the same findings as when checked in the check's own process (`--sandbox off`).
@Suite("plugin check in a sandboxed worker")
struct PluginCheckSandboxTests {
    static let available = WorkerSandbox.available()

    static func library(_ attack: String) -> String {
        Binary.testPluginDirectory + "/hostile/librenderfarm-test-hostile-\(attack).so"
    }

    static func check(_ attack: String, target: String, _ extra: [String] = []) throws -> Binary.Result {
        try Binary.run(["plugin", "check", library(attack), "--params", #"{"target": "\#(target)"}"#] + extra)
    }

    @Test(
        "reading or writing a file, running a shell, forking: a failed finding names the denial; nothing happens",
        .enabled(
            if: available.contains(.seccomp),
            "the kernel offers no seccomp filter (article UntrustedPlugins, Kernel limits)"),
        arguments: ["read", "write", "exec", "fork"])
    func attacks(attack: String) throws {
        let folder = try TemporaryFolder()
        let secret = try folder.write("not for plugins\n", to: "secret.txt")
        let target = attack == "read" ? secret : folder.path + "/\(attack)-made-this"
        let denied = [
            "read": "tried to open \(target)", "write": "tried to write \(target)", "exec": "tried to run /bin/sh",
            "fork": "tried to start a process",
        ][attack, default: "?"]
        let result = try Self.check(attack, target: target)
        #expect(result.status == 1, "\(result.stdout)")
        #expect(
            result.stdout.contains("FAIL    sandbox: plugin \"hostile-\(attack)\" \(denied): denied by the sandbox"),
            "\(result.stdout)")
        // The descriptor was checked before the first call.
        #expect(result.stdout.contains("ok      descriptor.id: \"hostile-\(attack)\""), "\(result.stdout)")
        if attack != "read" { #expect(!FileManager.default.fileExists(atPath: target)) }

        // Checked in the check's own process, the plugin does what it tried: the checks above can fail.
        let trusted = try Self.check(attack, target: target, ["--sandbox", "off"])
        #expect(!trusted.stdout.contains("sandbox:"), "\(trusted.stdout)")
        if attack == "read" {
            #expect(trusted.status == 0, "\(trusted.stdout)")
        } else {
            #expect(FileManager.default.fileExists(atPath: target), "\(trusted.stdout)")
        }
    }

    @Test("a sound plugin's findings in the sandboxed worker are the in-process check's, time aside")
    func sameFindings() throws {
        let library = Binary.testPluginDirectory + "/librenderfarm-test-faults.so"
        let params = ["--params", #"{"holdFrames": 7}"#]
        let sandboxed = CLI.run(["plugin", "check", library] + params)
        let inProcess = try Binary.run(["plugin", "check", library, "--sandbox", "off"] + params)
        #expect(sandboxed.status == 0, "\(sandboxed.stdout)\(sandboxed.stderr)")
        let findings = { (text: String) in text.split(separator: "\n").filter { !$0.contains(" time: ") } }
        #expect(findings(sandboxed.stdout) == findings(inProcess.stdout), "\(sandboxed.stdout)")
    }

    @Test(
        "a plugin writing its own lines to the worker's socket fails the check with the reason; nothing is believed",
        arguments: [
            (
                "hello parent",
                "FAIL    worker: the worker process sent a reply the protocol does not have: \"hello parent\""
            ),
            ("flood", "FAIL    worker: the worker process sent a line longer than 65536 bytes; it was ended"),
        ])
    func forgedLines(line: String, finding: String) throws {
        let sandboxed = try Self.check("reply", target: line)
        #expect(sandboxed.status == 1, "\(sandboxed.stdout)")
        #expect(sandboxed.stdout.contains(finding), "\(sandboxed.stdout)")
    }

    @Test("--sandbox takes strict, require or off; require refuses (69) where the kernel lacks a layer")
    func modes() throws {
        let library = Binary.testPluginDirectory + "/librenderfarm-test-faults.so"
        let wrong = CLI.run(["plugin", "check", library, "--sandbox", "loose"])
        #expect(wrong.status == 64 && wrong.stderr.contains("--sandbox expects strict, require or off"))
        let require = CLI.run(["plugin", "check", library, "--sandbox", "require"])
        if Self.available == .all {
            #expect(require.status == 0, "\(require.stdout)\(require.stderr)")
        } else {
            #expect(require.status == 69, "\(require.stderr)")
        }
    }
}
