import Foundation
import RenderFarmOutput

/// The files of a new out-of-tree plugin project (`renderfarm plugin new`): a plugin that builds
/// and renders with no edits, an example job, a README and a test that renders two frames and
/// checks their pixels.
package struct PluginScaffold: Sendable {
    package enum Language: String, Sendable, CaseIterable {
        case c, swift
    }

    /// The plugin id (the `effect` of a job layer), e.g. `sparkle-dots`.
    package let id: String
    package let language: Language
    /// The EffectKit package a Swift plugin's Package.swift depends on: the installed copy
    /// (`<prefix>/share/renderfarm/swift/EffectKit`) or a RenderFarm checkout.
    package let renderFarmSource: String?
    /// What a project's `make test` runs after `$(RENDERFARM)`: `render` of `exampleJobFile` with the
    /// library's folder on the plugin path, frames `testFrames` into `testOutput`, without progress. The
    /// CLI spells it from its own options, so no option name is written here.
    package let testRender: [String]

    /// The example job every project holds.
    package static let exampleJobFile = "example.json"
    /// The frames `make test` renders and checks (its `test-pixels` line names their files).
    package static let testFrames = "0,30"
    /// Where `make test` renders them, inside the project.
    package static let testOutput = "out/test"

    /// Fails with a message when `id` breaks the id rule.
    package init(
        id: String, language: Language, renderFarmSource: String? = nil, testRender: [String]
    ) throws(ScaffoldError) {
        guard PluginCheck.isValidID(id) else {
            throw .invalidID(id)
        }
        if language == .swift, renderFarmSource == nil {
            throw .noEffectKit
        }
        self.id = id
        self.language = language
        self.renderFarmSource = renderFarmSource
        self.testRender = testRender
    }

    /// `sparkle-dots` → `SparkleDots`: the Swift module and type name.
    package var moduleName: String {
        id.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// `sparkle-dots` → `sparkle_dots`: the C file name and symbol prefix.
    package var cName: String { id.replacingOccurrences(of: "-", with: "_") }

    /// The library the project builds, as the host finds it on its plugin path.
    package var libraryName: String { "librenderfarm-\(id).so" }

    /// Relative path → contents.
    package var files: [String: String] {
        let templates: [String: String] =
            switch language {
            case .c:
                [
                    "Makefile": Self.cMakefile, "\(cName).c": Self.cPlugin, "test_pixels.c": Self.cTest,
                    "README.md": Self.cReadme, Self.exampleJobFile: Self.exampleJob,
                    ".gitignore": "*.so\ntest-pixels\nout/\n",
                ]
            case .swift:
                [
                    "Package.swift": Self.swiftPackage, "Makefile": Self.swiftMakefile,
                    "Sources/\(moduleName)/\(moduleName).swift": Self.swiftEffect,
                    "Sources/\(moduleName)/Export.swift": Self.swiftExport,
                    "Tests/\(moduleName)Tests/\(moduleName)Tests.swift": Self.swiftTest,
                    "README.md": Self.swiftReadme, Self.exampleJobFile: Self.exampleJob,
                    ".gitignore": ".build/\nout/\n",
                ]
            }
        return templates.mapValues(fill)
    }

    /// Writes the project into `folder` (created; refused when it exists and is not empty).
    package func write(to folder: String) throws(ScaffoldError) {
        let manager = FileManager.default
        if let existing = try? manager.contentsOfDirectory(atPath: folder), !existing.isEmpty {
            throw .folderNotEmpty(folder)
        }
        do {
            for (path, contents) in files.sorted(by: { $0.key < $1.key }) {
                let url = URL(fileURLWithPath: folder).appendingPathComponent(path)
                try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(contents.utf8).write(to: url)
            }
        } catch {
            throw .cannotWrite(folder, reason: error.localizedDescription)
        }
    }

    private func fill(_ template: String) -> String {
        let source = renderFarmSource ?? ""
        return
            template
            .replacingOccurrences(of: "__ID__", with: id)
            .replacingOccurrences(of: "__MODULE__", with: moduleName)
            .replacingOccurrences(of: "__CNAME__", with: cName)
            .replacingOccurrences(of: "__LIBRARY__", with: libraryName)
            .replacingOccurrences(of: "__SOURCE__", with: source)
            .replacingOccurrences(of: "__TEST_OUTPUT__", with: Self.testOutput)
            // A recipe line is run by the shell after make expands it: `$` is written `$$`.
            .replacingOccurrences(
                of: "__TEST_RENDER__",
                with: testRender.map { ShellWord.quoted($0).replacingOccurrences(of: "$", with: "$$") }
                    .joined(separator: " "))
    }
}

/// Why a project could not be scaffolded.
package enum ScaffoldError: Error, Equatable, CustomStringConvertible {
    case invalidID(String)
    /// A Swift project was asked for without the EffectKit package to build against.
    case noEffectKit
    case folderNotEmpty(String)
    case cannotWrite(String, reason: String)

    package var description: String {
        switch self {
        case .invalidID(let id):
            "\"\(id)\" is not a plugin id: lowercase letters, digits and '-', not starting with '-' (e.g. sparkle-dots)"
        case .noEffectKit: "a Swift plugin needs the EffectKit package (--renderfarm-source DIR)"
        case .folderNotEmpty(let folder): "\(folder) exists and is not empty; choose another --dir or NAME"
        case .cannotWrite(let folder, let reason): "cannot write \(folder): \(reason)"
        }
    }
}

extension PluginScaffold {
    static let exampleJob = #"""
        {
          "version": 1,
          "name": "__ID__-example",
          "seed": 7,
          "canvas": { "width": 320, "height": 240, "scale": 1, "background": "#00000000" },
          "fps": 30,
          "duration": 2,
          "output": { "dir": "out/example" },
          "layers": [
            { "effect": "__ID__", "params": {} }
          ]
        }

        """#
}
