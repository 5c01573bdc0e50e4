import FileInput
import Foundation
import RenderFarm
import RenderFarmJobs

/// `renderfarm plugin new NAME --lang c|swift [--dir DIR]`: scaffolds an out-of-tree plugin.
struct PluginNewCommand: Command {
    static let spec = CommandSpec(
        name: "plugin new",
        abstract: "Create a plugin project (C or Swift) that builds, tests and renders with no edits.",
        synopsis: "plugin new NAME",
        examples: [
            "renderfarm plugin new sparkle --lang c",
            "renderfarm plugin new sparkle --lang swift --dir ~/src",
        ],
        discussion: """
            NAME is the plugin id jobs use (lowercase letters, digits and '-', not starting with '-').
            The project is written to DIR/NAME (DIR defaults to the current folder) with an
            example job, a README and a test that renders two frames and checks their pixels.

            C: a Makefile using `pkg-config renderfarm-plugin`; when pkg-config does not search the
            prefix renderfarm is installed in, plugin new prints the exact PKG_CONFIG_PATH line to
            run first (and make stops with it instead of a missing cairo.h).
            Swift: a Package.swift depending on the EffectKit package and a Makefile that builds
            in release (a debug build needs the Swift toolchain at run time). EffectKit is
            --renderfarm-source DIR, else $RENDERFARM_SOURCE, else the copy `make install` put in
            <prefix>/share/renderfarm/swift/EffectKit, else the checkout the running renderfarm was
            built in; a folder given by option or variable that holds no EffectKit is an error.

            Both Makefiles have `make install-user`, which copies the library into the user's
            plugin folder ($XDG_DATA_HOME/renderfarm/plugins, by default
            ~/.local/share/renderfarm/plugins), searched by default with no root and no variable;
            plugin new prints it, and the RENDERFARM_PLUGIN_PATH that uses the library in place.

            Exit status: 0 created, 64 usage, 66 no EffectKit package found, 73 cannot write.
            """,
        options: [lang, dir, renderfarmSource],
        positionals: 1...1)

    static let lang = Option("--lang", value: "c|swift", help: "The plugin's language.", required: true)
    static let dir = Option("--dir", value: "DIR", help: "Create the project in DIR/NAME (default: ./NAME).")
    static let renderfarmSource = Option(
        "--renderfarm-source", value: "DIR",
        help: "The EffectKit package a Swift plugin builds against (installed copy or RenderFarm checkout).")

    let id: String
    let language: PluginScaffold.Language
    let folder: String
    let source: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        id = arguments.positionals[0]
        guard let lang = arguments[Self.lang] else {
            throw UsageError(message: "--lang is required: c or swift", command: Self.spec.name)
        }
        guard let language = PluginScaffold.Language(rawValue: lang) else {
            throw UsageError(message: "--lang expects c or swift, got \"\(lang)\"", command: Self.spec.name)
        }
        self.language = language
        folder = ((arguments[Self.dir] ?? ".") as NSString).appendingPathComponent(id)
        source = arguments[Self.renderfarmSource]
    }

    func run(_ terminal: Terminal) -> ExitCode {
        var effectKit: String?
        if language == .swift {
            switch Self.effectKitPackage(explicit: source) {
            case .success(let found): effectKit = found
            case .failure(let refusal): return .reporting(refusal, to: terminal)
            }
        }
        do {
            let scaffold = try PluginScaffold(
                id: id, language: language, renderFarmSource: effectKit,
                testRender: Self.testRender(pluginFolder: language == .c ? "." : ".build/release"))
            try scaffold.write(to: folder)
        } catch {
            return .reporting(error, to: terminal)
        }
        terminal.print("created \(folder) (\(language.rawValue) plugin \"\(id)\")")
        if let effectKit { terminal.print("EffectKit from: \(effectKit)") }
        let steps = Self.nextSteps(
            language: language, project: folder, absolute: URL(fileURLWithPath: folder).standardizedFileURL.path,
            sdk: Self.lookUpSDK(), userFolder: PluginCatalog.userFolder())
        for line in steps { terminal.print(line) }
        return .ok
    }

    /// What a project's `make test` runs: two frames of its example job, the library's folder on the plugin path.
    static func testRender(pluginFolder: String) -> [String] {
        [RenderCommand.spec.name, PluginScaffold.exampleJobFile] + CommonOptions.pluginPath.words(pluginFolder)
            + RenderCommand.frames.words(PluginScaffold.testFrames) + RenderCommand.out.words(PluginScaffold.testOutput)
            + CommonOptions.progress.words(ProgressMode.none.rawValue)
    }

    /// Where `make install` puts EffectKit, relative to the prefix.
    static let installedEffectKit = "share/renderfarm/swift/EffectKit"

    /// The EffectKit package a Swift plugin builds against: `explicit` (--renderfarm-source), else
    /// RENDERFARM_SOURCE, else the copy `make install` put under the prefix, else the checkout around
    /// the running executable. A path the user gave that holds no EffectKit is an error, never
    /// passed over for another one.
    static func effectKitPackage(
        explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Result<String, CommandRefusal> {
        let wanted = "a folder with Package.swift and Sources/EffectKit (<prefix>/\(installedEffectKit) or a checkout)"
        func holdsNone(_ given: String) -> CommandRefusal {
            .effectKitNotFound("\(given) holds no EffectKit package; give \(wanted)")
        }
        if let explicit {
            return isPackage(explicit)
                ? .success(absolute(explicit)) : .failure(holdsNone("--renderfarm-source \"\(explicit)\""))
        }
        if let variable = environment["RENDERFARM_SOURCE"], !variable.isEmpty {
            return isPackage(variable)
                ? .success(absolute(variable)) : .failure(holdsNone("RENDERFARM_SOURCE=\"\(variable)\""))
        }
        let executable = PluginCatalog.executableFolder()
        var candidates = [executable.deletingLastPathComponent().appendingPathComponent(installedEffectKit).path]
        var folder = executable
        while folder.path != "/" {
            candidates.append(folder.path)
            folder.deleteLastPathComponent()
        }
        guard let found = candidates.first(where: isPackage) else {
            return .failure(
                .effectKitNotFound(
                    "no EffectKit package found: install RenderFarm (`make install` puts one in <prefix>/"
                        + "\(installedEffectKit)), or give \(wanted) with --renderfarm-source or RENDERFARM_SOURCE"))
        }
        return .success(absolute(found))
    }

    private static func isPackage(_ path: String) -> Bool {
        let manager = FileManager.default
        return manager.fileExists(atPath: (path as NSString).appendingPathComponent("Package.swift"))
            && manager.fileExists(atPath: (path as NSString).appendingPathComponent("Sources/EffectKit"))
    }

    private static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
