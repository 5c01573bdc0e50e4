import CCairo
import CPango
import EffectKit
import FileInput
import Foundation
import Locking

/// The fonts text is drawn with: the job's own font files and the fonts of the Debian packages RenderFarm
/// depends on, never what else a machine has (EffectKit article TextEffect, "Fonts").
///
/// Fontconfig is given a configuration of its own with no configuration file, no font folders and one rule
/// (``rules``): only the files named here, added one by one (the job's first, then the packages' sorted by
/// path), so that the same job finds the same faces on every machine with the same packages.
enum FontLibrary {
    /// The Debian packages whose fonts text may use (the Makefile installs them).
    static let packages = ["fonts-noto-core", "fonts-noto-color-emoji", "fonts-noto-cjk"]

    /// The family used when a job names none, and the faces every text falls back to before fontconfig's own
    /// order: Latin, Arabic, Hebrew, then CJK (chosen by `language`) and colour emoji.
    static let defaultFamily = "Noto Sans"
    static let fallbackFamilies = ["Noto Sans", "Noto Sans Arabic", "Noto Sans Hebrew"]
    static let emojiFamily = "Noto Color Emoji"

    /// The font files of `packages` as dpkg lists them (fonts only, sorted), from `infoDirectory`.
    static func packageFontFiles(infoDirectory: String = "/var/lib/dpkg/info") -> [String] {
        var files: [String] = []
        for package in packages {
            guard let list = try? String(contentsOfFile: "\(infoDirectory)/\(package).list", encoding: .utf8) else {
                continue
            }
            files += list.split(separator: "\n").map(String.init).filter(isFontFile)
        }
        return files.sorted().filter { FileManager.default.isReadableFile(atPath: $0) }
    }

    /// Whether `name` names a font file (TTF, OTF or a collection) rather than a family.
    static func isFontFile(_ name: String) -> Bool {
        let lower = name.lowercased()
        return [".ttf", ".otf", ".ttc", ".otc"].contains { lower.hasSuffix($0) }
    }

    /// Refuses a job's font at `path` (resolved, as the job names it `name`) unless it is a regular file,
    /// with the words images are refused with: FreeType opens a font blocking, so a named pipe would wait
    /// for ever, and a device would be read without end. The check opens it as every input is opened
    /// (`InputFile`: without blocking, no link followed) and reads nothing.
    static func checkFile(_ path: String, named name: String) throws(EffectError) {
        do {
            _ = try InputFile(path, followLastLink: false)
        } catch {
            throw EffectError(parameter: "font", error.message(naming: name))
        }
    }

    /// The configuration's only rules: a bitmap face (Noto Color Emoji's) is scaled to the size asked for, as
    /// fontconfig's own 10-scale-bitmap-fonts.conf does; without it emoji would be drawn at their bitmaps' size.
    static let rules = """
        <?xml version="1.0"?>
        <!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
        <fontconfig>
          <match target="font">
            <test name="outline" compare="eq"><bool>false</bool></test>
            <edit name="pixelsizefixupfactor" mode="assign">
              <divide><name target="pattern">pixelsize</name><name target="font">pixelsize</name></divide>
            </edit>
          </match>
          <match target="font">
            <test name="outline" compare="eq"><bool>false</bool></test>
            <test name="pixelsizefixupfactor" compare="not_eq"><double>1.0</double></test>
            <edit name="matrix" mode="assign">
              <times><name>matrix</name><matrix><name>pixelsizefixupfactor</name><double>0</double>
                <double>0</double><name>pixelsizefixupfactor</name></matrix></times>
            </edit>
            <edit name="size" mode="assign"><divide><name>size</name><name>pixelsizefixupfactor</name></divide></edit>
          </match>
        </fontconfig>
        """

    /// The CJK family for a BCP 47 language tag: Japanese, Korean, traditional or simplified Chinese forms.
    static func cjkFamily(language: String) -> String {
        let tag = language.lowercased()
        if tag.hasPrefix("ko") { return "Noto Sans CJK KR" }
        if tag.hasPrefix("zh") {
            let traditional = ["hant", "-tw", "-hk", "-mo"].contains { tag.contains($0) }
            return traditional ? "Noto Sans CJK TC" : "Noto Sans CJK SC"
        }
        return "Noto Sans CJK JP"
    }
}

/// The faces of the package font files, as fontconfig finds them in each file, read once for every setup of the
/// process (per copy of this code).
///
/// Reading a font file for fontconfig opens it with FreeType and lists the characters of each face: about 0.1 s for
/// the packages' 273 files, which every setup paid again (a render of jobs with fonts of their own, a font file
/// edited while the studio runs). A setup now copies the faces read once, in the files' order, into its configuration:
/// what `FcConfigAppFontAddFile` would have put there (`FcFreeTypeQueryAll` over all faces, then the configuration's
/// scan rules, of which RenderFarm's has none), and a test compares the two face by face.
///
/// `@unchecked Sendable`: used only while ``PangoWorld/shared`` is locked, like ``FontSetup``.
final class PackageFonts: @unchecked Sendable {
    let files: [String]
    /// The faces of every file but the first, in order. Never freed, as `first`: the process keeps them.
    private let rest: UnsafeMutablePointer<FcFontSet>?
    /// The first file's faces, read when a setup needs them copied: only one that adds a job's own font files first.
    /// A setup without them has fontconfig add the first file itself, which makes the configuration's set of
    /// application fonts (fontconfig has no other call that makes it), so reading it here too would read it twice.
    private lazy var first = Self.read(files.prefix(1))

    init(files: [String]) {
        self.files = files
        rest = Self.read(files.dropFirst())
    }

    private static func read(_ files: ArraySlice<String>) -> UnsafeMutablePointer<FcFontSet>? {
        let faces = FcFontSetCreate()
        if let faces { for file in files { _ = FcFreeTypeQueryAll(file, UInt32.max, nil, nil, faces) } }
        return faces
    }

    /// Adds the faces to `config`'s application fonts after those it has, as adding each file would.
    func add(to config: OpaquePointer) {
        guard let firstFile = files.first else { return }
        var copied: [UnsafeMutablePointer<FcFontSet>?] = [rest]
        if FcConfigGetFonts(config, FcSetApplication) == nil {
            _ = FcConfigAppFontAddFile(config, firstFile)
        } else {
            copied.insert(first, at: 0)
        }
        guard let set = FcConfigGetFonts(config, FcSetApplication) else { return }
        for case let faces? in copied {
            for index in 0..<Int(faces.pointee.nfont) {
                guard let face = faces.pointee.fonts[index], let copy = FcPatternDuplicate(face) else { continue }
                _ = FcConfigSubstitute(config, copy, FcMatchScan)
                if FcFontSetAdd(set, copy) == FcFalse { FcPatternDestroy(copy) }
            }
        }
    }
}

/// A fontconfig configuration over a fixed list of files and the Pango font map that uses it.
///
/// `@unchecked Sendable`: its pointers are only used while ``PangoWorld/shared`` is locked.
final class FontSetup: @unchecked Sendable {
    let config: OpaquePointer
    let fontMap: OpaquePointer
    /// Every family the files hold, for checking `font` and for error messages.
    let families: Set<String>
    /// The family of each job font file.
    let jobFamilies: [String: String]
    /// The job's own path of each job font file added under another path (``PangoWorld/setup(jobFiles:)``).
    private let originals: [String: String]

    /// `aliases`: for each job file, the path fontconfig is given for it (the file itself unless it is there).
    init(jobFiles: [String], packageFonts: PackageFonts, aliases: [String: String] = [:]) throws(EffectError) {
        guard let config = FcConfigCreate() else { throw EffectError("fontconfig could not create a configuration") }
        guard FcConfigParseAndLoadFromMemory(config, FontLibrary.rules, FcFalse) == FcTrue else {
            FcConfigDestroy(config)
            throw EffectError("fontconfig refused RenderFarm's font rules")
        }
        var jobFamilies: [String: String] = [:]
        for file in jobFiles {
            let before = Self.familiesByFile(config)
            guard FcConfigAppFontAddFile(config, aliases[file] ?? file) == FcTrue else {
                FcConfigDestroy(config)
                throw EffectError(parameter: "font", "\(file) is not a font file fontconfig can read (TTF, OTF, TTC)")
            }
            let added = Self.familiesByFile(config).filter { before[$0.key] == nil }
            jobFamilies[file] = added.values.first
        }
        packageFonts.add(to: config)
        guard let fontMap = rf_text_font_map_new(config) else {
            FcConfigDestroy(config)
            throw EffectError("Pango could not create a font map")
        }
        self.config = config
        self.fontMap = OpaquePointer(fontMap)
        self.families = Set(Self.familiesByFile(config).values)
        self.jobFamilies = jobFamilies
        self.originals = Dictionary(aliases.map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The job's path of a font file a layout used (fontconfig's path for it may be an alias).
    func original(_ path: String) -> String { originals[path] ?? path }

    private var contexts: [String: OpaquePointer] = [:]

    /// A Pango context for layouts in `language` with a left-to-right or right-to-left base direction, made
    /// once: Pango keeps the fonts it found for a context, and shrinking a text to fit sets it many times.
    func context(language: String, rightToLeft: Bool) throws(EffectError) -> OpaquePointer {
        let key = "\(language)|\(rightToLeft)"
        if let context = contexts[key] { return context }
        guard let context = pango_font_map_create_context(UnsafeMutablePointer(fontMap)) else {
            throw EffectError("Pango could not create a context")
        }
        // Grey antialiasing, no hinting, unhinted metrics: a layout's shapes and positions do not depend on the
        // scale it is drawn at or on the machine.
        let options = cairo_font_options_create()
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        pango_cairo_context_set_font_options(context, options)
        cairo_font_options_destroy(options)
        // Points are user units: 72 dots per inch, whatever the machine's screen says.
        pango_cairo_context_set_resolution(context, 72)
        pango_context_set_round_glyph_positions(context, 0)
        pango_context_set_language(context, pango_language_from_string(language))
        pango_context_set_base_dir(context, rightToLeft ? PANGO_DIRECTION_RTL : PANGO_DIRECTION_LTR)
        contexts[key] = context
        return context
    }

    /// The first family name of every face in the configuration's application fonts, by file.
    private static func familiesByFile(_ config: OpaquePointer) -> [String: String] {
        guard let set = FcConfigGetFonts(config, FcSetApplication) else { return [:] }
        var result: [String: String] = [:]
        for index in 0..<Int(set.pointee.nfont) {
            guard let pattern = set.pointee.fonts[index] else { continue }
            var file: UnsafeMutablePointer<FcChar8>?
            var family: UnsafeMutablePointer<FcChar8>?
            guard FcPatternGetString(pattern, FC_FILE, 0, &file) == FcResultMatch, let file,
                FcPatternGetString(pattern, FC_FAMILY, 0, &family) == FcResultMatch, let family
            else { continue }
            let path = String(cString: file)
            if result[path] == nil { result[path] = String(cString: family) }
        }
        return result
    }
}

/// Every Pango and fontconfig call of the process happens while this is locked: neither library promises
/// that one font map may be used from several threads at once. Text is a small part of a frame's drawing.
///
/// The lock is one per process, not one per copy of this code: a plugin library loaded twice into one process (a
/// rebuilt plugin the studio reloads, the incremental harness's rebuilt copies, the tests' own copy beside the
/// plugin's) has two of these worlds, but one Pango, one fontconfig and one cairo, whose font caches hold the
/// fonts of both. With a lock for each copy, two copies drawing text at once crashed cairo
/// (`cairo_scaled_font_glyph_extents`). Every copy finds the same mutex (`rf_text_libraries_mutex`, CPango).
final class PangoWorld {
    static let shared = Locked(PangoWorld(), sharing: librariesMutex)

    /// The process's mutex of the text libraries. Recursive, for ``releasing(_:)``; ``shared``'s `withLock` is
    /// still never called within itself. `nonisolated(unsafe)`: the pointer never changes, and the mutex it points
    /// to is only locked and unlocked.
    nonisolated(unsafe) private static let librariesMutex: UnsafeMutablePointer<pthread_mutex_t> = {
        guard let mutex = rf_text_libraries_mutex() else { preconditionFailure("no memory for a mutex") }
        return mutex
    }()

    /// Runs `body`, which releases Pango objects, with the libraries locked: releasing a layout releases its fonts,
    /// which their font map and cairo's caches share with every other layout. For a `deinit`, which may run
    /// anywhere, also within ``shared``'s lock on this thread (an error thrown while layouts were being made).
    static func releasing(_ body: () -> Void) {
        pthread_mutex_lock(librariesMutex)
        defer { pthread_mutex_unlock(librariesMutex) }
        body()
    }

    private var setups: [String: FontSetup] = [:]
    /// The package fonts, scanned once by this copy of the plugin for all its setups.
    private lazy var packageFonts = PackageFonts(files: FontLibrary.packageFontFiles())
    /// How many setups have added each job font file, by path.
    private var setupsAdding: [String: Int] = [:]
    /// How many aliases this instance has made (each link's name starts with its number).
    private var aliasCount = 0
    /// The folder of this instance's aliases, made under the temporary folder when the first is needed; nil when
    /// it cannot be. It is the instance's own, not named after the process: a plugin library loaded twice into one
    /// process (a rebuilt plugin the studio reloads) has two of these worlds but one cairo, which keeps fonts by
    /// path, so two worlds must never give fontconfig the same alias path for two files. Removed with its links when
    /// the process exits (cairo may open a font through its alias until then).
    private lazy var aliasFolder: String? = {
        guard let folder = ScratchFolder.make(prefix: "renderfarm-fonts-") else { return nil }
        _ = Self.removedAtExit
        Self.madeAliasFolder.withLock { $0 = folder }
        return folder
    }()
    /// The alias folder of this copy of the plugin, once made: what `removeAliasFolder` removes at exit.
    private static let madeAliasFolder = Locked<String?>(nil)
    private static let removedAtExit: Void = { atexit { PangoWorld.removeAliasFolder() } }()

    /// The setup for these job font files (absolute paths), made once per process per distinct list and
    /// version of the files (a file edited while the process runs gets a new setup).
    ///
    /// cairo keeps one font per file path for the life of the process, with its glyphs, and reopens the file when
    /// it likes: a file rewritten at the same path would be drawn with the old version's glyphs or the new one's,
    /// depending on what else was drawn meanwhile. So from the second setup that adds it on (for a new version of
    /// it, or another list of files with it), a file is given to fontconfig under a path of its own: a symbolic
    /// link to it in a folder of this instance's (when one can be made; a sandboxed worker, which cannot, lives for
    /// one run).
    func setup(jobFiles: [String]) throws(EffectError) -> FontSetup {
        let key = jobFiles.map { file in
            var status = stat()
            _ = stat(file, &status)
            return "\(file)\u{0}\(status.st_dev):\(status.st_ino):\(status.st_size):\(status.st_mtim.tv_sec)."
                + "\(status.st_mtim.tv_nsec)"
        }.joined(separator: "\u{1}")
        if let setup = setups[key] { return setup }
        var aliases: [String: String] = [:]
        for file in jobFiles {
            let earlier = setupsAdding[file, default: 0]
            setupsAdding[file] = earlier + 1
            if earlier > 0, let alias = alias(of: file, number: aliasCount) {
                aliases[file] = alias
                aliasCount += 1
            }
        }
        let setup = try FontSetup(jobFiles: jobFiles, packageFonts: packageFonts, aliases: aliases)
        setups[key] = setup
        return setup
    }

    /// Removes the alias folder and the links in it, the only entries it holds.
    private static func removeAliasFolder() {
        guard let folder = madeAliasFolder.withLock({ $0 }), let directory = opendir(folder) else { return }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { unlinkat(dirfd(directory), name, 0) }
        }
        closedir(directory)
        rmdir(folder)
    }

    /// A symbolic link to `file`, the `number`th this instance makes, in its alias folder; nil when it cannot be
    /// made.
    private func alias(of file: String, number: Int) -> String? {
        guard let aliasFolder else { return nil }
        let link = (aliasFolder as NSString).appendingPathComponent("\(number)-\((file as NSString).lastPathComponent)")
        return symlink(file, link) == 0 ? link : nil
    }
}
