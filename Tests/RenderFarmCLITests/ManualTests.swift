import Foundation
import RenderFarmManual
import RenderFarmOutput
import Testing

@testable import RenderFarmCLI

/// The manual (`renderfarm docs`, `help TOPIC`, the man pages, the HTML pages): every article of the DocC
/// catalogs, and every word of each in all three outputs, for the articles as written and for generated ones.
@Suite("The manual in a terminal, in man and in a browser without JavaScript")
struct ManualTests {
    /// The articles on disk, as (module, file name).
    static let catalogFiles: [String] = ["RenderFarm", "EffectKit", "Motion"].flatMap { module in
        let folder = Binary.packageRoot.appendingPathComponent("Sources/\(module)/\(module).docc")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".md") }.map { "\(module)/\($0)" }
    }

    @Test("the manual holds every article of the three catalogs, as written, under names no two share")
    func everyArticle() throws {
        #expect(Self.catalogFiles.count >= 30)
        #expect(Set(Manual.topics.map { "\($0.module)/\($0.file)" }) == Set(Self.catalogFiles))
        for topic in Manual.topics {
            let file = Binary.packageRoot.appendingPathComponent(
                "Sources/\(topic.module)/\(topic.module).docc/\(topic.file)")
            #expect(topic.markdown == (try String(contentsOf: file, encoding: .utf8)), "\(topic.file) is stale")
            #expect(!topic.title.isEmpty && !topic.abstract.isEmpty, "\(topic.file)")
            #expect(Manual.topic(named: topic.name)?.file == topic.file)
            #expect(Manual.topic(named: topic.manName)?.file == topic.file)
            #expect(Manual.topic(named: topic.article)?.file == topic.file)
        }
        #expect(Set(Manual.topics.map(\.name)).count == Manual.topics.count)
        #expect(Set(Manual.topics.map(\.manName)).count == Manual.topics.count)
        #expect(Manual.topic(named: "running-on-a-cluster")?.article == "RunningOnACluster")
        #expect(Manual.topic(named: "uikit-dynamics")?.article == "UIKitDynamics")
        #expect(Manual.topic(named: "renderfarm-job")?.manSection == 5)
    }

    @Test(
        "each article's words all reach the terminal, the man page (as groff sets it) and the web page",
        arguments: Manual.topics.map(\.name))
    func nothingLost(_ name: String) throws {
        let topic = try #require(Manual.topic(named: name))
        try Self.expectEveryWord(of: topic)
    }

    @Test("40 generated articles (tables, links, lists, code, headings) lose no word in any output")
    func generatedArticles() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["RENDERFARM_MANUAL_SEED"] ?? "") ?? 0x6D61_6E75
        for index in 0..<40 {
            var random = FuzzRandom(seed: seed &+ UInt64(index))
            let markdown = GeneratedArticle.markdown(&random)
            let topic = ManualTopic(module: "", file: "Generated\(index).md", markdown: markdown)
            try Self.expectEveryWord(of: topic, case: "RENDERFARM_MANUAL_SEED=\(seed &+ UInt64(index))")
        }
    }

    @Test("help TOPIC prints what docs TOPIC prints, by topic, page or file name; unknown topics are refused")
    func helpAndDocs() throws {
        let docs = CLI.run(["docs", "composing-layers"])
        #expect(docs.status == 0, "\(docs.stderr)")
        #expect(docs.stdout.hasPrefix("Composing layers\n================\n"))
        #expect(docs.stdout.contains("OVERVIEW"))
        #expect(!docs.stdout.contains("<doc:") && !docs.stdout.contains("```"))
        for words in [
            ["help", "composing-layers"], ["docs", "renderfarm-composing-layers"], ["docs", "ComposingLayers"],
        ] {
            #expect(CLI.run(words).stdout == docs.stdout, "\(words)")
        }
        // A command's name is its help; the article of the same name is a topic of docs.
        #expect(CLI.run(["help", "studio"]).stdout.contains("USAGE: renderfarm studio"))
        #expect(CLI.run(["docs", "studio"]).stdout.hasPrefix("Studio: authoring jobs live"))
        let listing = CLI.run(["docs"])
        #expect(listing.status == 0)
        for topic in Manual.topics {
            #expect(listing.stdout.contains("  \(topic.name) "), "\(topic.name)")
            #expect(listing.stdout.contains("[\(topic.manName)(\(topic.manSection))]"))
        }
        let unknown = CLI.run(["docs", "composing-layer"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("no topic \"composing-layer\" in the manual (did you mean composing-layers?)"))
        #expect(CLI.run(["help", "composing-layer"]).status == 64)
        let both = CLI.run(["docs", "sound", "--man", "x"])
        #expect(both.status == 64)
        #expect(both.stderr.contains("give them without a TOPIC"))
        let narrow = CLI.run(["docs", "sound", "--width", "40"]).stdout
        #expect(narrow.split(separator: "\n").allSatisfy { $0.count <= 40 || $0.hasPrefix("    ") })
        #expect(CLI.run(["help", "sound", "--width", "40"]).stdout == narrow, "help TOPIC takes docs' options")
        #expect(CLI.run(["docs", "sound", "--width", "5"]).status == 64)
    }

    @Test("docs --man and --html write every page; the web pages link each other and need no script")
    func writtenPages() throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.url
        let man = folder.appendingPathComponent("man")
        let written = CLI.run(["docs", "--man", man.path])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stdout.contains("\(Manual.topics.count + 1) manual pages"))
        for topic in Manual.topics {
            let page = man.appendingPathComponent("man\(topic.manSection)/\(topic.manName).\(topic.manSection)")
            #expect(try String(contentsOf: page, encoding: .utf8) == topic.man(version: rendererVersion))
        }
        let renderfarm1 = try String(contentsOf: man.appendingPathComponent("man1/renderfarm.1"), encoding: .utf8)
        #expect(renderfarm1 == CLI.run(["man-page"]).stdout)
        #expect(renderfarm1.contains("\\fBrenderfarm\\-composing\\-layers\\fR(7)"))

        let html = folder.appendingPathComponent("html")
        #expect(CLI.run(["docs", "--html", html.path]).status == 0)
        let pages = try FileManager.default.contentsOfDirectory(atPath: html.path)
        #expect(Set(pages) == Set(["index.html"] + Manual.topics.map(\.htmlFile)))
        var linked: Set<String> = []
        for page in pages {
            let text = try String(contentsOf: html.appendingPathComponent(page), encoding: .utf8)
            #expect(!text.lowercased().contains("<script"), "\(page)")
            for target in Self.links(in: text) where !target.contains(":") {
                let file = String(target.prefix { $0 != "#" })
                #expect(pages.contains(file), "\(page) links to \(target)")
                if let anchor = target.split(separator: "#").dropFirst().first {
                    let linkedText = try String(contentsOf: html.appendingPathComponent(file), encoding: .utf8)
                    #expect(linkedText.contains("id=\"\(anchor)\""), "\(page) links to \(target)")
                }
                linked.insert(file)
            }
        }
        // The index reaches every page; the articles' <doc:…> links became links between pages.
        #expect(linked.isSuperset(of: Manual.topics.map(\.htmlFile)))
        let composing = try String(contentsOf: html.appendingPathComponent("composing-layers.html"), encoding: .utf8)
        #expect(composing.contains("<table>"))

        let blocked = folder.appendingPathComponent("file")
        try Data().write(to: blocked)
        let refused = CLI.run(["docs", "--html", blocked.appendingPathComponent("html").path])
        #expect(refused.status == 73, "\(refused.stderr)")
    }

    @Test("man-page --article takes a topic or any Markdown file; a missing file exits 66")
    func articleManPage() throws {
        let topic = try #require(Manual.topic(named: "job-file-reference"))
        let page = CLI.run(["man-page", "--article", "job-file-reference"])
        #expect(page.status == 0)
        #expect(page.stdout == topic.man(version: rendererVersion))
        #expect(page.stdout.hasPrefix(".TH RENDERFARM\\-JOB 5 "))
        let temporary = try TemporaryFolder()
        let folder = temporary.url
        let notes = folder.appendingPathComponent("notes.md")
        try Data("# My notes\n\nWhat I keep.\n\n## Links\n\nSee <doc:Sound>.\n".utf8).write(to: notes)
        let mine = CLI.run(["man-page", "--article", notes.path, "--name", "my-notes", "--section", "7"])
        #expect(mine.stdout.hasPrefix(".TH MY\\-NOTES 7 "))
        #expect(mine.stdout.contains("my\\-notes \\- My notes"))
        #expect(mine.stdout.contains("Sound, \\f[B]renderfarm\\-sound\\f[](7)"))
        #expect(CLI.run(["man-page", "--article", "/nonexistent.md"]).status == 66)
    }

    // MARK: Checks

    /// Every word of the article (letters, three or more, as a reader sees them in the Markdown) is in its
    /// text, in its man page as groff sets it (without a warning), and in its web page's text; no DocC or
    /// Markdown syntax is left in the text outputs.
    static func expectEveryWord(of topic: ManualTopic, case label: String = "") throws {
        let source = words(readableMarkdown(topic.markdown))
        let text = topic.text(width: 80)
        let outputs = [
            ("text", text),
            ("man", try groffText(topic.man(version: "test"), label: "\(label) \(topic.file)")),
            ("html", htmlText(topic.html(version: "test"))),
        ]
        for (format, output) in outputs {
            let missing = source.subtracting(words(output))
            #expect(missing.isEmpty, "\(label) \(topic.file): \(format) lacks \(missing.sorted().prefix(12))")
        }
        for syntax in ["<doc:", "```", "|---", "| ---"] {
            #expect(!text.contains(syntax), "\(label) \(topic.file): text shows \(syntax)")
        }
    }

    /// The Markdown's prose: `<doc:…>` targets, link addresses and code blocks' languages left out (the
    /// outputs show the target's title, put an address in a link, and do not name the language), and
    /// backticks too ("`fsync`ed" reads "fsynced").
    static func readableMarkdown(_ markdown: String) -> String {
        var text = markdown
        for pattern in [#"<doc:[^>]*>"#, #"\]\([^)]*\)"#, #"<https?://[^>]*>"#, #"```[a-z]+"#] {
            text = text.replacingOccurrences(of: pattern, with: " ", options: .regularExpression)
        }
        return text.replacingOccurrences(of: "`", with: "")
    }

    /// Its words of three letters or more, each as its capitals read in lowercase (a section heading in
    /// capitals writes "straße" STRASSE).
    static func words(_ text: String) -> Set<String> {
        Set(text.split { !$0.isLetter }.filter { $0.count >= 3 }.map { $0.uppercased().lowercased() })
    }

    static func htmlText(_ html: String) -> String {
        var text = html.replacingOccurrences(of: #"<[^>]*>"#, with: "", options: .regularExpression)
        for (entity, character) in [("&quot;", "\""), ("&lt;", "<"), ("&gt;", ">"), ("&#39;", "'"), ("&amp;", "&")] {
            text = text.replacingOccurrences(of: entity, with: character)
        }
        return text
    }

    /// The page as groff sets it for a terminal (no hyphenation, no bold or underline), which must say
    /// nothing on standard error at its strictest warnings.
    static func groffText(_ roff: String, label: String) throws -> String {
        let groff = try #require(
            Tools.find("groff"), "groff is missing: make test installs groff-base (make deps-handoff)")
        let temporary = try TemporaryFolder()
        let folder = temporary.url
        let file = folder.appendingPathComponent("page.7")
        try Data(roff.utf8).write(to: file)
        let set = try Tools.run(groff, ["-k", "-man", "-Tutf8", "-rHY=0", "-P-cbou", "-ww", file.path])
        #expect(set.status == 0 && set.stderr.isEmpty, "\(label): groff says \(set.stderr)")
        return set.text
    }

    static func links(in html: String) -> [String] {
        let pattern = #/href="([^"]*)"/#
        return html.matches(of: pattern).map { String($0.output.1) }
    }
}

/// Random articles in the Markdown the catalogs use: sections, paragraphs with code, bold and links
/// (to other topics and to addresses), lists (nested too), code blocks and tables with empty cells.
enum GeneratedArticle {
    static let vocabulary = [
        "layer", "frame", "spring", "bloom", "opacity", "shadow", "banner", "gift", "heart", "basket", "emitter",
        "timeline", "footage", "manifest", "shard", "keyframe", "gravity", "elasticity", "friction", "canvas",
        "encode", "sound", "studio", "variant", "résumé", "naïve", "straße", "blur", "stroke", "mask",
    ]

    static func markdown(_ random: inout FuzzRandom) -> String {
        var lines = [
            "# " + sentence(&random, 2...5, plain: true), "", sentence(&random, 6...14, plain: true) + ".", "",
        ]
        for _ in 0..<random.integer(1...4) {
            lines += [(random.chance(0.7) ? "## " : "### ") + sentence(&random, 1...4, plain: true), ""]
            for _ in 0..<random.integer(1...4) {
                switch random.next(5) {
                case 0:
                    for _ in 0..<random.integer(1...4) {
                        lines.append("- " + sentence(&random, 3...12, plain: false))
                        if random.chance(0.3) { lines.append("  - " + sentence(&random, 2...6, plain: false)) }
                    }
                case 1:
                    lines += ["```json", "{ \"\(random.pick(vocabulary))\": \(random.integer(0...99)) }", "```"]
                case 2:
                    let columns = random.integer(2...4)
                    lines.append(
                        "| " + (0..<columns).map { _ in random.pick(vocabulary) }.joined(separator: " | ") + " |")
                    lines.append("|" + String(repeating: " --- |", count: columns))
                    for _ in 0..<random.integer(1...4) {
                        let cells = (0..<columns).map { column in
                            column > 0 && random.chance(0.2) ? "" : sentence(&random, 1...6, plain: false)
                        }
                        lines.append("| " + cells.joined(separator: " | ") + " |")
                    }
                default:
                    lines.append(sentence(&random, 8...30, plain: false) + ".")
                }
                lines.append("")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Words from the vocabulary; unless `plain`, some in code, bold, or a link to a topic or an address.
    static func sentence(_ random: inout FuzzRandom, _ count: ClosedRange<Int>, plain: Bool) -> String {
        (0..<random.integer(count)).map { _ -> String in
            let word = random.pick(vocabulary)
            guard !plain else { return word }
            switch random.next(10) {
            case 0: return "`\(word)`"
            case 1: return "**\(word)**"
            case 2: return "<doc:\(random.pick(Manual.topics).article)>"
            case 3: return "[\(word)](https://example.com/\(random.integer(1...9)))"
            default: return word
            }
        }.joined(separator: " ")
    }
}
