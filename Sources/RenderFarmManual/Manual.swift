import Foundation
import ManualArticles

/// The manual: every DocC article of the RenderFarm, EffectKit and Motion catalogs, compiled into the
/// binary, under a topic name a user types (`renderfarm docs composing-layers`,
/// `man renderfarm-composing-layers`).
package enum Manual {
    /// Every article, in catalog order (RenderFarm, EffectKit, Motion), each catalog's landing page first,
    /// then its articles by file name.
    package static let topics: [ManualTopic] = {
        let all = (0..<manual_article_count()).compactMap { index -> ManualTopic? in
            guard let article = manual_article_at(index)?.pointee else { return nil }
            let markdown = String(
                decoding: UnsafeBufferPointer(start: article.bytes, count: article.size), as: UTF8.self)
            return ManualTopic(
                module: String(cString: article.module), file: String(cString: article.file), markdown: markdown)
        }
        return modules.flatMap { module in
            all.filter { $0.module == module && $0.isLandingPage }
                + all.filter { $0.module == module && !$0.isLandingPage }
        }
    }()

    /// The catalogs, in the order the manual lists them.
    package static let modules = ["RenderFarm", "EffectKit", "Motion"]

    /// The topic a user named: its topic name, its man page's name (`renderfarm-job`), or its article's
    /// file name with or without `.md` (`ComposingLayers`).
    package static func topic(named name: String) -> ManualTopic? {
        let lowered = name.lowercased()
        return topics.first {
            $0.name == lowered || $0.manName == lowered || $0.article.lowercased() == lowered
                || $0.file.lowercased() == lowered
        }
    }

    /// The topic of a `<doc:Article>` link's target.
    static func topic(article: String) -> ManualTopic? { topics.first { $0.article == article } }
}

/// One article of the manual.
package struct ManualTopic: Sendable {
    /// The catalog it belongs to: "RenderFarm", "EffectKit" or "Motion".
    package let module: String
    /// Its file name in the catalog ("ComposingLayers.md") and that name without `.md`, which
    /// `<doc:…>` links name.
    package let file: String
    package let article: String
    /// The Markdown as written.
    package let markdown: String
    /// What users type: the file name in lowercase words joined by hyphens ("composing-layers");
    /// a catalog's landing page is its module's name in lowercase, RenderFarm's "overview".
    package let name: String
    /// Its title (the `#` heading) and abstract (the paragraph under it), as plain text.
    package let title: String
    package let abstract: String

    /// An article of `module`'s catalog named `file`, or any Markdown file read as one.
    package init(module: String, file: String, markdown: String) {
        self.module = module
        self.file = file
        self.markdown = markdown
        article = file.hasSuffix(".md") ? String(file.dropLast(3)) : file
        name = article != module ? Self.hyphenated(article) : module == "RenderFarm" ? "overview" : module.lowercased()
        let tree = MarkdownTree(markdown)
        let blocks = tree.blocks
        let heading = blocks.first { MarkdownTree.kind($0) == "heading" }
        title = heading.map(MarkdownTree.plainText) ?? article
        let paragraph = blocks.drop { $0 != heading }.dropFirst().first { MarkdownTree.kind($0) == "paragraph" }
        abstract = paragraph.map(MarkdownTree.plainText) ?? ""
    }

    /// "ComposingLayers" → "composing-layers", "RunningOnACluster" → "running-on-a-cluster",
    /// "UIKitDynamics" → "uikit-dynamics": a hyphen before an uppercase letter that follows a lowercase
    /// one or a digit, or that starts a word after a one-letter word.
    static func hyphenated(_ name: String) -> String {
        let characters = Array(name)
        var result = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let startsWord = index + 1 < characters.count && characters[index + 1].isLowercase
                let afterOneLetterWord = previous.isUppercase && index > 1 && !characters[index - 2].isUppercase
                if previous.isLowercase || previous.isNumber || (startsWord && afterOneLetterWord) { result += "-" }
            }
            result += character.lowercased()
        }
        return result
    }

    /// Whether it is its catalog's landing page (`RenderFarm.md`).
    package var isLandingPage: Bool { article == module }

    /// Its manual page: `renderfarm-<name>` in section 7, except the two pages that had these names
    /// before the whole manual was installed: the job file is `renderfarm-job(5)` and the guide to
    /// writing a plugin `renderfarm-plugin(7)`.
    package var manName: String {
        switch article {
        case "JobFileReference": "renderfarm-job"
        case "WritingAPlugin": "renderfarm-plugin"
        default: "renderfarm-\(name)"
        }
    }

    package var manSection: Int { article == "JobFileReference" ? 5 : 7 }

    /// Its HTML page's file name in the folder `renderfarm docs --html` writes.
    package var htmlFile: String { "\(name).html" }
}
