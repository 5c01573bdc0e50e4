import Foundation

/// Assets rewritten with the same size and modification time (a file whose size, time and inode
/// all stay: only its bytes tell), and the sound, which no frame shows.
extension HarnessEditor {
    func sameSizeAndTime(of folder: HarnessJobFolder, random: inout FuzzRandom) throws -> HarnessEdit? {
        let paths = folder.assets.keys.sorted().filter { path in
            switch folder.assets[path]?.kind {
            case .png?, .lottie?, .events?, .rows?: true
            case .picture?: path.hasSuffix(".png")
            case .sound?: path.hasSuffix(".wav")
            default: false
            }
        }
        guard let path = random.pickIfAny(paths), let asset = folder.assets[path] else { return nil }
        var edited = folder
        var rewritten: HarnessAsset?
        switch asset {
        case .file(let kind, let data) where kind == .png || kind == .picture:
            guard let size = HarnessAssetFiles.pngSize(data) else { return nil }
            rewritten = .file(kind, HarnessAssetFiles.png(width: size.width, height: size.height, random: &random))
        case .file(.lottie, let data): rewritten = .file(.lottie, Self.changeDigit(in: data, random: &random))
        case .file(.sound, let data):
            var bytes = [UInt8](data)
            for _ in 0..<16 where bytes.count > 46 {
                bytes[random.integer(44...bytes.count - 1)] ^= UInt8(random.integer(1...255))
            }
            rewritten = .file(.sound, Data(bytes))
        default:
            // An event or a row changed, drawn again until the file keeps its length.
            for _ in 0..<20 where rewritten == nil {
                var attempt = folder
                guard
                    let edit = try
                        (asset.kind == .rows
                        ? variantsCell(of: folder, random: &random)
                        : eventLine(of: folder, random: &random)),
                    let candidate = edit.folder.assets[path], candidate.data.count == asset.data.count,
                    candidate.data != asset.data
                else { continue }
                attempt.assets = edit.folder.assets
                edited = attempt
                rewritten = candidate
            }
        }
        guard let rewritten, rewritten.data != asset.data, rewritten.data.count == asset.data.count else { return nil }
        edited.assets[path] = rewritten
        return HarnessEdit(
            kind: .assetSameSizeAndTime, label: "\(asset.kind.rawValue) (.\(URL(fileURLWithPath: path).pathExtension))",
            description: "\(path) rewritten in place: \(asset.data.count) bytes, same modification time",
            expected: Self.expected(for: path, in: folder), folder: edited, operations: [.rewriteKeepingTime(path)])
    }

    /// The `audio` section added, removed or changed, or a sound file rewritten: no frame may be redrawn.
    func sound(of folder: HarnessJobFolder, random: inout FuzzRandom) throws -> HarnessEdit? {
        var edited = folder
        guard let audio = folder.job["audio"], !random.chance(0.15) else {
            if folder.job["audio"] == nil {
                try generator.addAudio(to: &edited, random: &random)
            } else {
                edited.job["audio"] = nil
            }
            let added = edited.job["audio"] != nil
            return HarnessEdit(
                kind: .sound, label: added ? "audio section added" : "audio section removed",
                description: "audio \(added ? "added: " + HarnessEdit.show(edited.job["audio"]) : "removed")",
                expected: .nothing, folder: edited)
        }
        let wavs = folder.assets.keys.sorted().filter { $0.hasSuffix(".wav") && folder.names($0) }
        if let path = random.pickIfAny(wavs), random.chance(0.4) {
            let data = HarnessAssetFiles.wav(seconds: random.number(0.2...1), random: &random)
            edited.assets[path] = .file(.sound, data)
            return HarnessEdit(
                kind: .sound, label: "sound file", description: "\(path): new tone, \(data.count) bytes",
                expected: .nothing, folder: edited)
        }
        let field = random.pick(["music.gain", "music.fadeIn", "music.start", "sounds.gain", "sounds.at"])
        var changed = audio
        if field.hasPrefix("music") {
            guard audio["music"] != nil else { return nil }
            changed.set(field, .rounded(random.number(0...0.5) - (field == "music.gain" ? 6 : 0)))
        } else {
            guard var sounds = audio["sounds"]?.arrayValue, var first = sounds.first else { return nil }
            let duration = HarnessGenerator.Frame(folder.job).duration
            first[field == "sounds.gain" ? "gain" : "at"] =
                field == "sounds.gain"
                ? .rounded(random.number(-12...0)) : .array([.rounded(random.number(0...duration))])
            sounds[0] = first
            changed["sounds"] = .array(sounds)
        }
        guard changed != audio else { return nil }
        edited.job["audio"] = changed
        return HarnessEdit(
            kind: .sound, label: "audio " + field,
            description: "audio.\(field): \(HarnessEdit.show(audio.value(at: field)))"
                + " → \(HarnessEdit.show(changed.value(at: field)))",
            expected: .nothing, folder: edited)
    }

    /// The byte ranges of number literals in JSON text (after `:`, `,` or `[`).
    static func numberLiterals(in bytes: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var index = 0
        var previous: UInt8 = 0
        var inString = false
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if byte == UInt8(ascii: "\\") { index += 1 } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if (byte == UInt8(ascii: "-") || (48...57).contains(byte)) && ":,[".utf8.contains(previous) {
                let start = index
                while index + 1 < bytes.count, "-+.eE0123456789".utf8.contains(bytes[index + 1]) { index += 1 }
                ranges.append(start..<index + 1)
            }
            if !inString, byte > 32 { previous = byte }
            index += 1
        }
        return ranges
    }

    /// JSON text with one number literal replaced by another (between half and one and a half of it).
    static func changeNumber(in data: Data, random: inout FuzzRandom) -> Data {
        var bytes = [UInt8](data)
        guard let range = random.pickIfAny(numberLiterals(in: bytes)),
            let value = Double(String(decoding: bytes[range], as: UTF8.self))
        else { return data }
        let new =
            value == value.rounded()
            ? (value * random.number(0.5...1.5)).rounded() + 1 : value * random.number(0.5...1.5)
        bytes.replaceSubrange(range, with: Array(HarnessJSON.format((new * 1000).rounded() / 1000).utf8))
        return Data(bytes)
    }

    /// JSON text with one digit of a number literal replaced by another (the same length; no leading zero).
    static func changeDigit(in data: Data, random: inout FuzzRandom) -> Data {
        var bytes = [UInt8](data)
        let digits = numberLiterals(in: bytes).flatMap { range in
            range.filter { (48...57).contains(bytes[$0]) }.map { (range, $0) }
        }
        guard let (range, index) = random.pickIfAny(digits) else { return data }
        let leading = index == range.lowerBound || bytes[index - 1] == UInt8(ascii: "-")
        let followedByDigit = index + 1 < range.upperBound && (48...57).contains(bytes[index + 1])
        let allowed = (leading && followedByDigit ? 49...57 : 48...57).filter { $0 != Int(bytes[index]) }
        bytes[index] = UInt8(random.pick(allowed))
        return Data(bytes)
    }
}
