import FileOutput
import Foundation
import RenderFarm
import RenderFarmJobs
import RenderFarmManual
import RenderFarmOutput
import StrictJSON

/// `renderfarm docs [TOPIC]`: the manual (every DocC article, compiled into the binary) in the terminal,
/// and written as manual pages or as web pages without JavaScript for `make install`.
struct DocsCommand: Command {
    static let spec = CommandSpec(
        name: "docs",
        abstract: "Read the manual: list its topics, or print one in the terminal.",
        synopsis: "docs [TOPIC]",
        examples: [
            "renderfarm docs",
            "renderfarm docs composing-layers",
            "renderfarm docs --html manual",
        ],
        discussion: """
            Every article of the documentation is a topic: the same text as the DocC pages, the
            manual pages (renderfarm-TOPIC(7); the job file is renderfarm-job(5), writing a plugin
            renderfarm-plugin(7)) and the HTML pages. `renderfarm help TOPIC` prints a topic too,
            with the same options, when TOPIC is no command's name. A topic may also be named by its manual page or its
            article's file name (renderfarm-job, JobFileReference).
            --man DIR writes renderfarm(1) and every topic's page into DIR/man1, man5 and man7, and
            --html DIR writes index.html and a page per topic into DIR: `make install` installs both.
            """,
        options: [man, html, width],
        positionals: 0...1)

    static let man = Option("--man", value: "DIR", help: "Write every manual page into DIR/man1, man5 and man7.")
    static let html = Option("--html", value: "DIR", help: "Write the manual as web pages into DIR.")
    static let width = Option(
        "--width", value: "N", help: "Wrap a topic's text at N columns (default: the terminal's, at most 100).")

    let arguments: ParsedArguments
    let topic: ManualTopic?
    let columns: Int?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
        columns = try arguments.number(Self.width, in: 20...1000, command: Self.spec.name).map { Int($0) }
        guard let name = arguments.positionals.first else {
            topic = nil
            return
        }
        guard arguments[Self.man] == nil, arguments[Self.html] == nil else {
            throw UsageError(
                message: "--man and --html write the whole manual: give them without a TOPIC", command: Self.spec.name)
        }
        guard let topic = Manual.topic(named: name) else { throw Self.unknownTopic(name) }
        self.topic = topic
    }

    static func unknownTopic(_ name: String) -> UsageError {
        let hint = Suggestion.closest(to: name, in: Manual.topics.map(\.name)).map { " (did you mean \($0)?)" } ?? ""
        return UsageError(
            message: "no topic \"\(name)\" in the manual\(hint); `renderfarm docs` lists them", command: "docs")
    }

    func run(_ terminal: Terminal) -> ExitCode {
        if let topic {
            Self.print(topic, width: columns, on: terminal)
            return .ok
        }
        guard arguments[Self.man] != nil || arguments[Self.html] != nil else {
            terminal.print(Self.listing)
            return .ok
        }
        do {
            if let folder = arguments[Self.man] { try writeManPages(into: folder, terminal) }
            if let folder = arguments[Self.html] { try writeHTML(into: folder, terminal) }
        } catch {
            return .reporting(error, to: terminal)
        }
        return .ok
    }

    /// Prints a topic's text wrapped at `width` columns (default: the terminal's, at most 100): `docs TOPIC`, which
    /// `help TOPIC` runs.
    static func print(_ topic: ManualTopic, width: Int? = nil, on terminal: Terminal) {
        let text = topic.text(width: width ?? min(terminal.columns ?? 80, 100))
        // Without the trailing newline `Terminal.print` adds.
        terminal.print(text.hasSuffix("\n") ? String(text.dropLast()) : text)
    }

    /// The topics under their catalogs, each with its title and manual page.
    static var listing: String {
        let width = (Manual.topics.map(\.name.count).max() ?? 0) + 2
        var lines = ["TOPICS (renderfarm docs TOPIC):"]
        for module in Manual.modules {
            lines += ["", "\(module):"]
            for topic in Manual.topics where topic.module == module {
                lines.append(
                    "  " + topic.name.padding(toLength: width, withPad: " ", startingAt: 0)
                        + "\(topic.title)  [\(topic.manName)(\(topic.manSection))]")
            }
        }
        return lines.joined(separator: "\n")
    }

    private func writeManPages(into folder: String, _ terminal: Terminal) throws {
        let commands = CommandList.listed.map { $0.spec }
        var pages = [
            Page(path: "man1/renderfarm.1", text: ManPage.render(commands: commands, version: rendererVersion))
        ]
        for topic in Manual.topics {
            let section = topic.manSection
            pages.append(
                Page(path: "man\(section)/\(topic.manName).\(section)", text: topic.man(version: rendererVersion)))
        }
        try Self.write(pages, into: folder)
        terminal.print("\(pages.count) manual pages in \(ShownPath.of(folder)) (man1, man5, man7)")
    }

    private func writeHTML(into folder: String, _ terminal: Terminal) throws {
        var pages = [Page(path: "index.html", text: Manual.htmlIndex(version: rendererVersion))]
        for topic in Manual.topics {
            pages.append(Page(path: topic.htmlFile, text: topic.html(version: rendererVersion)))
        }
        try Self.write(pages, into: folder)
        terminal.print("\(pages.count) web pages in \(ShownPath.of(folder)): open index.html")
    }

    /// A file to write: its path under the folder given, and its text.
    private struct Page {
        var path: String
        var text: String
    }

    /// Writes each page under `folder`, making the folders they go in.
    private static func write(_ pages: [Page], into folder: String) throws {
        for page in pages {
            let file = (folder as NSString).appendingPathComponent(page.path)
            let parent = (file as NSString).deletingLastPathComponent
            do {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            } catch {
                throw CommandRefusal.noOutputFolder(
                    ShownPath.of(parent), reason: (error as NSError).localizedDescription)
            }
            try AtomicFile.write(Array(page.text.utf8), to: file)
        }
    }
}
