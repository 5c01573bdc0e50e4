import Foundation
import Testing

/// The command line as a user meets it: help, versions, exit codes and messages, run in process
/// through `RenderFarmCLI` with a captured terminal.
@Suite("Command line")
struct CommandLineTests {
    static let commands = ["render", "validate", "trace", "plugins"]

    @Test("--help works on every command and shows its usage", arguments: commands)
    func help(command: String) {
        let result = CLI.run([command, "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: renderfarm \(command)"))
        #expect(result.stdout.contains("--help"))
    }

    @Test("the overview lists every command; --version prints the version")
    func overview() {
        let help = CLI.run(["--help"])
        #expect(help.status == 0)
        for command in Self.commands { #expect(help.stdout.contains(command)) }
        let version = CLI.run(["--version"])
        #expect(version.stdout.hasPrefix("renderfarm "))
        #expect(version.stdout.hasSuffix(" (plugin ABI v1)\n"), "\(version.stdout)")
    }

    @Test(
        "usage errors exit 64 with a hint",
        arguments: [
            (["rendr", "x.json"], "unknown command \"rendr\" (did you mean render?)"),
            (["render", "x.json", "--frmaes", "1"], "unknown option --frmaes (did you mean --frames?)"),
            (["render", "x.json", "-j", "0"], "-j/--jobs expects an integer in 1…1024, got \"0\""),
            (["render"], "missing argument"),
            (["render", "x.json", "--shard", "3/3"], "0 ≤ K < N"),
            (["render", "x.json", "--progress", "loud"], "--progress expects one of"),
        ])
    func usage(arguments: [String], message: String) {
        let result = CLI.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("a missing job file exits 66")
    func missingFile() {
        let result = CLI.run(["render", "/nonexistent/job.json"])
        #expect(result.status == 66)
        #expect(result.stderr.contains("/nonexistent/job.json: no such job file"))
    }

    @Test(
        "an unknown effect or a bad parameter exits 65, names layer and parameter, and creates no output",
        arguments: [
            (
                #"{"effect": "floating-hart"}"#,
                "layers[0].effect: unknown effect \"floating-hart\" (did you mean \"floating-heart\"?)"
            ),
            (
                #"{"effect": "floating-heart", "params": {"rate": 500}}"#,
                "layers[0].params.rate: 500 is out of range (allowed: 0…120)"
            ),
            (
                #"{"effect": "floating-heart", "params": {"spring": {"damping": 3}}}"#,
                "layers[0].params.spring.damping: 3 is out of range (allowed: 0.01…1)"
            ),
        ])
    func invalidLayer(layer: String, message: String) throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(#"{"duration": 1, "output": {"dir": "out"}, "layers": [\#(layer)]}"#, to: "job.json")
        for command in ["render", "validate"] {
            let result = CLI.run([command, job])
            #expect(result.status == 65)
            #expect(result.stderr.contains("job.json: \(message)"), "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("out").path))
    }

    @Test("plugins lists both plugins with their parameters, as text and as JSON")
    func plugins() throws {
        let text = CLI.run(["plugins"])
        #expect(text.status == 0)
        for fragment in ["floating-heart 1.0.0", "gradient 1.0.0", "pathSampling", "enum (bezier|paced)", "vignette"] {
            #expect(text.stdout.contains(fragment))
        }
        let json = CLI.run(["plugins", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let ids = list.compactMap { $0["id"] as? String }
        #expect(ids.contains("floating-heart") && ids.contains("gradient"))
        let unknown = CLI.run(["plugins", "hearts"])
        #expect(unknown.status == 69)
    }
}
