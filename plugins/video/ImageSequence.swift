import CairoKit
import EffectKit
import FileInput
import FootageTiming
import Foundation

/// A numbered PNG sequence, named as FFmpeg names one: `renders/glow_%04d.png` (four digits, zero-padded) or
/// `glow_%d.png` (any number of digits). Its files are the folder's names that match, numbered consecutively from
/// the lowest; frame n is shown from n / `rate` seconds. Each file is read as an image asset is (confined to the
/// job's folder, a regular file, within the asset limits) and decoded by cairo when drawn.
struct ImageSequence: Sendable {
    /// The pattern as the job names it.
    let name: String
    /// Each frame's file, absolute and symlink-free, in order.
    let files: [String]
    /// Frames per second.
    let rate: Double

    /// The most files a sequence may have: an hour at 60 fps.
    static let maxFiles = 216_000

    /// Whether `name` is a pattern (`%d`, or `%0Nd` with N up to 9) rather than a file.
    static func isPattern(_ name: String) -> Bool { pattern(name) != nil }

    /// The parts of the last path component of a pattern: before the number, the digits (0: any), after it.
    private static func pattern(_ name: String) -> (prefix: String, digits: Int, suffix: String)? {
        let base = (name as NSString).lastPathComponent
        guard let percent = base.firstIndex(of: "%") else { return nil }
        var rest = base[base.index(after: percent)...]
        var digits = 0
        if rest.first == "0", let width = rest.dropFirst().first?.wholeNumberValue, width > 0 {
            digits = width
            rest = rest.dropFirst(2)
        }
        guard rest.first == "d" else { return nil }
        return (String(base[..<percent]), digits, String(rest.dropFirst()))
    }

    /// The files of the pattern `name` in the folder it names, inside `jobDirectory`.
    init(_ name: String, jobDirectory: String, rate: Double) throws(EffectError) {
        guard let (prefix, digits, suffix) = Self.pattern(name), !suffix.contains("%") else {
            throw EffectError(parameter: "file", "\(name): a sequence has one number, %d or %04d")
        }
        guard suffix.lowercased().hasSuffix(".png") else {
            throw EffectError(parameter: "file", "\(name): an image sequence is of .png files")
        }
        let folderName = (name as NSString).deletingLastPathComponent
        let folder = try AssetPath.resolve(folderName.isEmpty ? "." : folderName, in: jobDirectory, parameter: "file")
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw EffectError(parameter: "file", "\(name): the folder \(folderName) cannot be listed")
        }
        var numbered: [(number: Int, entry: String)] = []
        for entry in entries where entry.hasPrefix(prefix) && entry.hasSuffix(suffix) {
            guard entry.count > prefix.count + suffix.count else { continue }
            let number = entry.dropFirst(prefix.count).dropLast(suffix.count)
            guard number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber), number.count <= 9,
                digits == 0 || number.count == digits, let value = Int(number)
            else { continue }
            numbered.append((value, entry))
        }
        numbered.sort { $0.number < $1.number }
        guard let lowest = numbered.first else {
            throw EffectError(parameter: "file", "\(name): no file in \(folderName.isEmpty ? "." : folderName) matches")
        }
        guard numbered.count <= Self.maxFiles else {
            throw EffectError(
                parameter: "file", "\(name): \(numbered.count) files; a sequence may have \(Self.maxFiles)")
        }
        for (index, file) in numbered.enumerated() where file.number != lowest.number + index {
            throw EffectError(
                parameter: "file",
                "\(name): frame \(lowest.number + index) is missing (the numbers run from \(lowest.number) to "
                    + "\(numbered[index - 1].number), then \(file.number)); a sequence has no gaps")
        }
        var files: [String] = []
        for (_, entry) in numbered {
            let relative = folderName.isEmpty ? entry : (folderName as NSString).appendingPathComponent(entry)
            files.append(try AssetPath.resolve(relative, in: jobDirectory, parameter: "file"))
        }
        self.name = name
        self.files = files
        self.rate = rate
    }
}

/// Decodes the files of an `ImageSequence`, each a frame of its own.
final class SequenceFrames: FootageSource {
    let sequence: ImageSequence
    let width: Int
    let height: Int
    let orientation = FootageOrientation.upright
    let pixelAspect = 1.0
    let audioStream: Int? = nil

    /// Reads the first file's size: every other must have it.
    init(_ sequence: ImageSequence) throws(EffectError) {
        self.sequence = sequence
        let first = try Self.header(sequence.files[0], name: sequence.name)
        (width, height) = (first.width, first.height)
    }

    /// Frame n at n / rate: times in thousandths of the rate's period, exact for rates of whole thousandths.
    func timeline() throws(EffectError) -> FootageTimeline {
        let count = sequence.files.count
        let timeBase = (num: Int32(1000), den: Int32((sequence.rate * 1000).rounded()))
        return FootageTimeline(
            timestamps: (0..<count).map(Int64.init), keyframes: Set((0..<count).map(Int64.init)), lastDuration: 1,
            timeBase: timeBase)
    }

    func frame(_ index: Int, of timeline: FootageTimeline) throws(EffectError) -> any ConvertibleFrame {
        let path = sequence.files[index]
        let image: ImageSurface
        do {
            image = try ImageSurface(contentsOfPNG: path, limits: .assets, followLastLink: false)
        } catch {
            throw EffectError(parameter: "file", "\(shown(index)): \(error)")
        }
        guard image.width == width, image.height == height else {
            throw EffectError(parameter: "file", sizeProblem(index, image.width, image.height))
        }
        image.flush()
        return CopiedFrame(image.bytes, width: width, height: height, stride: image.stride)
    }

    /// Decodes `frames` in full; with `keyframesOnly` reads only their headers: each a PNG of the first's size.
    func check(_ frames: ClosedRange<Int>, of timeline: FootageTimeline, keyframesOnly: Bool) throws(EffectError) {
        for index in frames {
            if keyframesOnly {
                let header = try Self.header(sequence.files[index], name: shown(index))
                guard header.width == width, header.height == height else {
                    throw EffectError(parameter: "file", sizeProblem(index, header.width, header.height))
                }
            } else {
                _ = try frame(index, of: timeline)
            }
        }
    }

    /// The file of frame `index` as messages name it.
    private func shown(_ index: Int) -> String {
        let file = (sequence.files[index] as NSString).lastPathComponent
        return "\(sequence.name) (\(file))"
    }

    private func sizeProblem(_ index: Int, _ otherWidth: Int, _ otherHeight: Int) -> String {
        "\(shown(index)) is \(otherWidth) × \(otherHeight) pixels, the sequence's first \(width) × \(height): "
            + "its frames have one size"
    }

    /// The PNG header of `path`, within the asset limits.
    private static func header(_ path: String, name: String) throws(EffectError) -> PNGHeader {
        let head: [UInt8]
        do {
            head = try InputFile(path, followLastLink: false).read(upTo: 24)
        } catch {
            throw EffectError(parameter: "file", "\(name): \(error.message(naming: path))")
        }
        guard let header = PNGHeader(head) else {
            throw EffectError(parameter: "file", "\(name) is not a PNG file")
        }
        let limits = ImageLimits.assets
        guard header.width <= limits.maxSide, header.height <= limits.maxSide,
            header.width * header.height <= limits.maxPixels
        else {
            throw EffectError(
                parameter: "file",
                "\(name) is \(header.width) × \(header.height) pixels; the limit is \(limits.maxSide) a side and "
                    + "\(limits.maxPixels) pixels")
        }
        return header
    }
}
