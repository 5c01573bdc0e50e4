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

            C: a Makefile using `pkg-config renderfarm-plugin` (set PKG_CONFIG_PATH to
            <prefix>/lib/pkgconfig for a prefix pkg-config does not search).
            Swift: a Package.swift depending on EffectKit from a RenderFarm source checkout,
            found as --renderfarm-source, else $RENDERFARM_SOURCE, else the checkout recorded
            by `make install` in <prefix>/share/renderfarm/source-path, else the checkout the
            running renderfarm was built in.

            Exit status: 0 created, 64 usage, 66 no RenderFarm source found, 73 cannot write.
            """,
        options: [lang, dir, renderfarmSource],
        positionals: 1...1)

    static let lang = Option("--lang", value: "c|swift", help: "The plugin's language.", required: true)
    static let dir = Option("--dir", value: "DIR", help: "Create the project in DIR/NAME (default: ./NAME).")
    static let renderfarmSource = Option(
        "--renderfarm-source", value: "DIR",
        help: "The RenderFarm source checkout a Swift plugin builds EffectKit from.")

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
        var checkout: String?
        if language == .swift {
            guard let found = Self.renderFarmSource(explicit: source) else {
                terminal.error(
                    "no RenderFarm source checkout found for EffectKit; pass --renderfarm-source DIR "
                        + "(a folder with Package.swift and Sources/EffectKit) or set RENDERFARM_SOURCE")
                return .noInput
            }
            checkout = found
        }
        let scaffold: PluginScaffold
        do {
            scaffold = try PluginScaffold(
                id: id, language: language, renderFarmSource: checkout, testRender: Self.testRender)
        } catch {
            terminal.error(error.description)
            return .usage
        }
        do {
            try scaffold.write(to: folder)
        } catch {
            terminal.error(error.description)
            return .cannotCreate
        }
        terminal.print("created \(folder) (\(language.rawValue) plugin \"\(id)\")")
        switch language {
        case .c:
            terminal.print("next: cd \(folder) && make && make test && make check")
        case .swift:
            terminal.print("EffectKit from: \(checkout ?? "")")
            terminal.print(
                "next: cd \(folder) && swift build && swift test && renderfarm plugin check .build/debug/\(scaffold.libraryName)"
            )
        }
        return .ok
    }

    /// What a C project's `make test` runs: two frames of its example job, its folder on the plugin path.
    static var testRender: [String] {
        [RenderCommand.spec.name, PluginScaffold.exampleJobFile] + CommonOptions.pluginPath.words(".")
            + RenderCommand.frames.words(PluginScaffold.testFrames) + RenderCommand.out.words(PluginScaffold.testOutput)
            + CommonOptions.progress.words(ProgressMode.none.rawValue)
    }

    /// The RenderFarm checkout: `explicit`, RENDERFARM_SOURCE, the path `make install` recorded,
    /// or the checkout around the running executable; nil when none holds Sources/EffectKit.
    static func renderFarmSource(
        explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        let executable = URL(fileURLWithPath: PluginCatalog.searchPath(environment: [:]).first ?? ".")
        let recorded = executable.deletingLastPathComponent().appendingPathComponent("share/renderfarm/source-path")
        var candidates: [String] = []
        if let explicit { return isCheckout(explicit) ? absolute(explicit) : nil }
        if let variable = environment["RENDERFARM_SOURCE"], !variable.isEmpty { candidates.append(variable) }
        if let bytes = try? InputFile.read(recorded.path, limit: 1 << 16) {
            candidates.append(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        var folder = executable
        while folder.path != "/" {
            candidates.append(folder.path)
            folder.deleteLastPathComponent()
        }
        return candidates.first(where: isCheckout).map(absolute)
    }

    private static func isCheckout(_ path: String) -> Bool {
        let manager = FileManager.default
        return manager.fileExists(atPath: (path as NSString).appendingPathComponent("Package.swift"))
            && manager.fileExists(atPath: (path as NSString).appendingPathComponent("Sources/EffectKit"))
    }

    private static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
