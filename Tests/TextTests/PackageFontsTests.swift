import CPango
import Foundation
import Testing

@testable import PangoText

/// The package fonts read once for every setup (``PackageFonts``) against fontconfig reading each file itself.
@Suite("Package fonts")
struct PackageFontsTests {
    /// A configuration with RenderFarm's rules and no fonts yet.
    static func configuration() throws -> OpaquePointer {
        let config = try #require(FcConfigCreate())
        try #require(FcConfigParseAndLoadFromMemory(config, FontLibrary.rules, FcFalse) == FcTrue)
        return config
    }

    /// The application fonts of `config`, in order.
    static func faces(_ config: OpaquePointer) -> [OpaquePointer] {
        guard let set = FcConfigGetFonts(config, FcSetApplication) else { return [] }
        return (0..<Int(set.pointee.nfont)).compactMap { set.pointee.fonts[$0] }
    }

    /// Every face of `b` equal to the face of `a` at its place, and as many; the first difference otherwise.
    static func difference(_ a: OpaquePointer, _ b: OpaquePointer) -> String? {
        let (left, right) = (faces(a), faces(b))
        guard left.count == right.count else { return "\(left.count) faces against \(right.count)" }
        for (index, (x, y)) in zip(left, right).enumerated() where FcPatternEqual(x, y) == FcFalse {
            let names = [x, y].map { face -> String in
                guard let text = FcNameUnparse(face) else { return "?" }
                defer { free(text) }
                return String(cString: text)
            }
            return "face \(index): \(names[0]) against \(names[1])"
        }
        return nil
    }

    @Test("every package file: a setup holds the faces fontconfig reads from each file itself, in the same order")
    func allFilesAsFontconfigReadsThem() throws {
        let files = FontLibrary.packageFontFiles()
        try #require(files.count > 100, "the font packages are not installed (make deps installs them)")
        let fontconfig = try Self.configuration()
        defer { FcConfigDestroy(fontconfig) }
        for file in files { _ = FcConfigAppFontAddFile(fontconfig, file) }
        let copied = try Self.configuration()
        defer { FcConfigDestroy(copied) }
        PackageFonts(files: files).add(to: copied)
        #expect(Self.faces(copied).count > files.count, "collections hold several faces each")
        #expect(Self.difference(fontconfig, copied) == nil)
    }

    @Test("random lists of package files, after a job's font file or alone: the faces fontconfig reads itself")
    func randomListsAsFontconfigReadsThem() throws {
        let files = FontLibrary.packageFontFiles()
        try #require(files.count > 100, "the font packages are not installed (make deps installs them)")
        var random = SystemRandomNumberGenerator()
        for trial in 0..<12 {
            let list = Array(files.shuffled(using: &random).prefix(Int.random(in: 1...6, using: &random))).sorted()
            let jobFile = trial.isMultiple(of: 2) ? files.randomElement(using: &random) : nil
            let fonts = PackageFonts(files: list)
            // The same fonts for a second configuration: a setup's copies leave the faces read once as they were.
            for round in 0..<2 {
                let fontconfig = try Self.configuration()
                defer { FcConfigDestroy(fontconfig) }
                let copied = try Self.configuration()
                defer { FcConfigDestroy(copied) }
                if let jobFile {
                    _ = FcConfigAppFontAddFile(fontconfig, jobFile)
                    _ = FcConfigAppFontAddFile(copied, jobFile)
                }
                for file in list { _ = FcConfigAppFontAddFile(fontconfig, file) }
                fonts.add(to: copied)
                let difference = Self.difference(fontconfig, copied)
                #expect(difference == nil, "\(list), job font \(jobFile ?? "none"), round \(round)")
            }
        }
    }
}
