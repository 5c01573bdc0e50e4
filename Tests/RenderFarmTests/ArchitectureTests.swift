import Foundation
import Testing

/// Issue 46: the layering the targets and folders show is checked, not only drawn. SwiftPM refuses a cycle of
/// targets; these tests read the sources for what it cannot see: a cycle of folders inside one target (a type
/// of folder A used in folder B and one of B in A), an engine target importing a plugin's code, and a plugin id
/// in the engine's sound code.
@Suite("architecture: no folder cycle inside a target, no plugin code in the engine")
struct ArchitectureTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// One Swift file: its folder inside its target (`.` for the target's own folder), and its text without
    /// comments and string literals.
    struct Source {
        var folder: String
        var code: String
    }

    /// The Swift files of every target under `Sources`, by target.
    static func targets() throws -> [String: [Source]] {
        let sources = repository.appendingPathComponent("Sources")
        var targets: [String: [Source]] = [:]
        for target in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let root = sources.appendingPathComponent(target)
            guard let walker = FileManager.default.enumerator(atPath: root.path) else { continue }
            for case let file as String in walker where file.hasSuffix(".swift") {
                let parts = file.split(separator: "/")
                let folder = parts.count > 1 ? String(parts[0]) : "."
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                targets[target, default: []].append(Source(folder: folder, code: withoutCommentsAndStrings(text)))
            }
        }
        return targets
    }

    /// `text` with `//` and `/* */` comments and the contents of string literals blanked (a type named only in
    /// a comment or a message is no dependency).
    static func withoutCommentsAndStrings(_ text: String) -> String {
        var output: [Character] = []
        var characters = Array(text)[...]
        while let character = characters.popFirst() {
            switch character {
            case "/" where characters.first == "/":
                while let next = characters.first, next != "\n" { characters.removeFirst() }
            case "/" where characters.first == "*":
                characters.removeFirst()
                while !characters.isEmpty, !(characters.first == "*" && characters.dropFirst().first == "/") {
                    characters.removeFirst()
                }
                characters = characters.dropFirst(2)
            case "\"":
                output.append("\"")
                // Multi-line literals and escapes: anything up to the next quote not after a backslash.
                while let next = characters.popFirst() {
                    if next == "\\" {
                        _ = characters.popFirst()
                    } else if next == "\"" {
                        break
                    }
                }
                output.append("\"")
            default:
                output.append(character)
            }
        }
        return String(output)
    }

    /// The types declared at the top level of `code` (a line that starts with the declaration).
    static func declaredTypes(_ code: String) -> [String] {
        let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "typealias", "actor"]
        let modifiers: Set<Substring> = [
            "package", "public", "internal", "fileprivate", "private", "final", "indirect", "nonisolated",
        ]
        return code.split(separator: "\n").compactMap { line in
            guard let first = line.first, first.isLetter || first == "@" else { return nil }
            var words = line.split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "<" || $0 == "{" })[...]
            while let word = words.first, modifiers.contains(word) || word.hasPrefix("@") { words.removeFirst() }
            guard let kind = words.first, kinds.contains(kind), let name = words.dropFirst().first else { return nil }
            return String(name)
        }
    }

    /// The capitalised identifiers `code` uses.
    static func typeNames(_ code: String) -> Set<String> {
        var names: Set<String> = []
        var word = ""
        for character in code + " " {
            if character.isLetter || character.isNumber || character == "_" {
                word.append(character)
            } else {
                if let first = word.first, first.isUppercase { names.insert(word) }
                word = ""
            }
        }
        return names
    }

    /// Which folder uses which, with the types it uses there.
    static func folderGraph(_ sources: [Source]) -> [String: [String: Set<String>]] {
        var owners: [String: Set<String>] = [:]
        for source in sources {
            for name in declaredTypes(source.code) { owners[name, default: []].insert(source.folder) }
        }
        var graph: [String: [String: Set<String>]] = [:]
        for source in sources {
            for name in typeNames(source.code) {
                // A name declared in two folders (private types of one name) tells nothing.
                guard let owner = owners[name], owner.count == 1, let folder = owner.first, folder != source.folder
                else { continue }
                graph[source.folder, default: [:]][folder, default: []].insert(name)
            }
        }
        return graph
    }

    /// A cycle of `graph`, as the folders along it, or nil.
    static func cycle(in graph: [String: [String: Set<String>]]) -> [String]? {
        var state: [String: Bool] = [:]  // false: on the path, true: done
        var path: [String] = []
        func visit(_ folder: String) -> [String]? {
            if state[folder] == true { return nil }
            if state[folder] == false { return Array(path[(path.firstIndex(of: folder) ?? 0)...]) + [folder] }
            state[folder] = false
            path.append(folder)
            for next in (graph[folder] ?? [:]).keys.sorted() {
                if let found = visit(next) { return found }
            }
            path.removeLast()
            state[folder] = true
            return nil
        }
        for folder in graph.keys.sorted() {
            if let found = visit(folder) { return found }
        }
        return nil
    }

    @Test("no target has a cycle of folders: each folder uses only folders below it")
    func noFolderCycles() throws {
        let targets = try Self.targets()
        #expect(targets.count > 10, "the sources were not found at \(Self.repository.path)")
        for (target, sources) in targets.sorted(by: { $0.key < $1.key }) {
            let graph = Self.folderGraph(sources)
            guard let cycle = Self.cycle(in: graph) else { continue }
            let uses = zip(cycle, cycle.dropFirst()).map { from, to in
                "\(from) → \(to) (\((graph[from]?[to] ?? []).sorted().prefix(6).joined(separator: ", ")))"
            }
            Issue.record("\(target) has a folder cycle: \(uses.joined(separator: "; "))")
        }
    }

    @Test("the check finds a cycle it is shown, and none where there is none")
    func findsCycles() {
        let cyclic = [
            Source(folder: "A", code: "struct Alpha {}\nlet x = Beta()"),
            Source(folder: "B", code: "enum Beta {}\nfunc f(_ a: Alpha) {}"),
            Source(folder: "C", code: "struct Gamma { var a: Alpha }"),
        ]
        #expect(Self.cycle(in: Self.folderGraph(cyclic)).map(Set.init) == ["A", "B"])
        let layered = [cyclic[0], Source(folder: "B", code: "enum Beta {}"), cyclic[2]]
        #expect(Self.cycle(in: Self.folderGraph(layered)) == nil)
        // Comments and messages name types without using them.
        let said = [
            Source(folder: "A", code: Self.withoutCommentsAndStrings("struct Alpha {}\n// Beta\nlet s = \"Beta\"")),
            Source(folder: "B", code: "enum Beta {}\nlet a = Alpha()"),
        ]
        #expect(Self.cycle(in: Self.folderGraph(said)) == nil)
    }

    /// The module names `import` lines of `sources` name.
    static func imports(_ sources: [Source]) -> Set<String> {
        Set(
            sources.flatMap { source in
                source.code.split(separator: "\n").compactMap { line -> String? in
                    let words = line.split(separator: " ")
                    guard let index = words.firstIndex(of: "import"), index + 1 < words.count else { return nil }
                    return words[..<index].allSatisfy({ $0.hasPrefix("@") }) ? String(words[index + 1]) : nil
                }
            })
    }

    @Test("no engine target imports a plugin's code, and the mixer (RenderFarmSound) names no plugin id")
    func enginesKnowNoPlugin() throws {
        let targets = try Self.targets()
        let pluginFolders = repository(listing: "plugins")
        // Every target whose sources lie under plugins/ (an effect, or code effects share, like FootageTiming), as
        // the manifest declares them: `.target(name: "X", …, path: "plugins/…")`.
        let manifest = try String(contentsOf: Self.repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        let pluginModules = Set(
            manifest.components(separatedBy: ".target(").dropFirst().compactMap { declaration -> String? in
                let fields = declaration.components(separatedBy: ".target(")[0]
                guard fields.contains("path: \"plugins/"),
                    let name = fields.components(separatedBy: "\"").dropFirst().first
                else { return nil }
                return name
            })
        #expect(
            pluginModules.isSuperset(of: ["FootageTiming", "Video", "FloatingHeart", "PangoText"]), "\(pluginModules)")
        for (target, sources) in targets {
            let imported = Self.imports(sources).intersection(pluginModules)
            #expect(imported.isEmpty, "\(target) imports \(imported.sorted())")
        }
        let sound = Self.repository.appendingPathComponent("Sources/RenderFarmSound")
        for file in try FileManager.default.contentsOfDirectory(atPath: sound.path) {
            let text = try String(contentsOf: sound.appendingPathComponent(file), encoding: .utf8)
            for id in pluginFolders where text.contains("\"\(id)\"") {
                Issue.record("RenderFarmSound/\(file) names the plugin id \"\(id)\"")
            }
        }
    }

    /// The engine's targets: what the `renderfarm` program is made of, above the libraries it shares with plugins.
    static let engineTargets = [
        "RenderFarmJobs", "RenderFarmOutput", "RenderFarmMedia", "RenderFarmSound", "RenderFarm", "RenderFarmStudio",
        "RenderFarmCLI", "renderfarm",
    ]

    @Test("the engine neither imports nor depends on EffectKit or Chipmunk: it animates layers with Motion alone")
    func engineLinksNoPluginSDK() throws {
        let targets = try Self.targets()
        let manifest = try String(contentsOf: Self.repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        let forbidden: Set<String> = ["EffectKit", "CChipmunk"]
        // Each target's declaration in the manifest (`.target(`, `.executableTarget(`), by the name it starts with:
        // a dependency links even when nothing imports it.
        let declarations = Dictionary(
            manifest.components(separatedBy: "arget(").dropFirst().compactMap { text -> (String, String)? in
                text.components(separatedBy: "\"").dropFirst().first.map { ($0, text) }
            },
            uniquingKeysWith: { first, _ in first })
        for target in Self.engineTargets {
            let sources = try #require(targets[target], "no sources for \(target)")
            let imported = Self.imports(sources).intersection(forbidden)
            #expect(imported.isEmpty, "\(target) imports \(imported.sorted())")
            let declaration = try #require(declarations[target], "\(target) is not declared in Package.swift")
            for name in forbidden where declaration.contains("\"\(name)\"") {
                Issue.record("\(target) depends on \(name) in Package.swift")
            }
        }
        #expect(Self.imports(try #require(targets["RenderFarmJobs"])).contains("Motion"))
    }

    @Test("the README stays within 14 KB and names every user article of RenderFarm.docc")
    func readmeIsShortAndComplete() throws {
        let readme = try Data(contentsOf: Self.repository.appendingPathComponent("README.md"))
        #expect(readme.count <= 14_000, "README.md is \(readme.count) bytes: say it shorter or move it into an article")
        let text = String(decoding: readme, as: UTF8.self)
        let articles = repository(listing: "Sources/RenderFarm/RenderFarm.docc")
            .filter { $0.hasSuffix(".md") && $0 != "RenderFarm.md" }.map { String($0.dropLast(3)) }
        #expect(articles.count > 10, "no articles found")
        for article in articles where !text.contains("`\(article)`") {
            Issue.record("README.md does not name the article \(article)")
        }
    }

    /// The names in a folder of the repository.
    private func repository(listing folder: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: Self.repository.appendingPathComponent(folder).path))?
            .sorted() ?? []
    }
}
