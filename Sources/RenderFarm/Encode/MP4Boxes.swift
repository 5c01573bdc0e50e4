/// An MP4 (ISO BMFF) file that cannot be read or changed as asked; `reason` says why.
struct MP4Error: Error, Equatable, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}

/// One box of an MP4 file: where its header and its payload are.
struct MP4Box: Equatable {
    var type: String
    var start: Int
    var payloadStart: Int
    var end: Int

    var payload: Range<Int> { payloadStart..<end }
}

/// A video track's sample description.
struct VideoTrack: Equatable {
    /// The sample entry's type, e.g. `avc1`.
    var codec: String
    var width: Int
    var height: Int
    /// H.273 matrix coefficients from the `colr` box (1 BT.709, 5 or 6 BT.601); nil when untagged.
    var matrix: Int? = nil
    /// Whether the `colr` box declares full range; false when untagged (limited range).
    var fullRange = false
}

/// Reads and rewrites the few MP4 boxes an alpha-packed video needs: the top-level `vapc` box
/// holding VAP's config, the chunk offsets that move when it is inserted, and the video size.
enum MP4Boxes {
    /// Boxes that hold other boxes on the way to the chunk offsets and the sample description.
    static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl"]

    /// The boxes inside `range` of `bytes` (the whole file for the top level).
    static func children(of bytes: [UInt8], in range: Range<Int>) throws(MP4Error) -> [MP4Box] {
        var boxes: [MP4Box] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            guard range.upperBound - offset >= 8 else { throw MP4Error(reason: "truncated box at byte \(offset)") }
            var size = Int(uint32(bytes, offset))
            var header = 8
            if size == 1 {
                guard range.upperBound - offset >= 16 else { throw MP4Error(reason: "truncated box at byte \(offset)") }
                let large = uint64(bytes, offset + 8)
                guard large <= UInt64(Int.max) else { throw MP4Error(reason: "box at byte \(offset) is too large") }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = range.upperBound - offset
            }
            guard size >= header, size <= range.upperBound - offset else {
                throw MP4Error(reason: "box at byte \(offset) has an impossible size \(size)")
            }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            boxes.append(MP4Box(type: type, start: offset, payloadStart: offset + header, end: offset + size))
            offset += size
        }
        return boxes
    }

    /// The payload of the first top-level `vapc` box, found the way VAP's Android player finds
    /// it: box by box from the start of the file.
    static func vapcPayload(in bytes: [UInt8]) throws(MP4Error) -> ArraySlice<UInt8>? {
        try children(of: bytes, in: 0..<bytes.count).first { $0.type == "vapc" }.map { bytes[$0.payload] }
    }

    /// `mp4` with a `vapc` box holding `json` right after `ftyp`, where VapTool's files have it, and
    /// every chunk offset (`stco`, `co64`) moved by the box's size so the samples are still found.
    static func insertingVapc(_ json: [UInt8], into mp4: [UInt8]) throws(MP4Error) -> [UInt8] {
        let top = try children(of: mp4, in: 0..<mp4.count)
        guard let ftyp = top.first, ftyp.type == "ftyp" else {
            throw MP4Error(reason: "the file does not start with ftyp")
        }
        guard !top.contains(where: { $0.type == "vapc" }) else { throw MP4Error(reason: "the file has a vapc box") }
        let size = 8 + json.count
        guard size <= Int(UInt32.max) else { throw MP4Error(reason: "the config is too large for a box") }
        var box = bytes(ofUInt32: UInt32(size)) + Array("vapc".utf8)
        box += json
        var result = Array(mp4[..<ftyp.end]) + box + Array(mp4[ftyp.end...])
        for moov in top where moov.type == "moov" {
            try shiftChunkOffsets(in: &result, range: (moov.start + size)..<(moov.end + size), from: ftyp.end, by: size)
        }
        return result
    }

    /// Adds `shift` to every chunk offset at or after `from` in the boxes inside `range`.
    private static func shiftChunkOffsets(
        in bytes: inout [UInt8], range: Range<Int>, from: Int, by shift: Int
    ) throws(MP4Error) {
        for box in try children(of: bytes, in: range) {
            if containers.contains(box.type) {
                try shiftChunkOffsets(in: &bytes, range: box.payload, from: from, by: shift)
                continue
            }
            guard box.type == "stco" || box.type == "co64" else { continue }
            let width = box.type == "stco" ? 4 : 8
            guard box.payload.count >= 8 else {
                throw MP4Error(reason: "\(box.type) at byte \(box.start) is truncated")
            }
            let count = Int(uint32(bytes, box.payloadStart + 4))
            guard count <= (box.payload.count - 8) / width else {
                throw MP4Error(reason: "\(box.type) at byte \(box.start) lists more entries than it holds")
            }
            for entry in 0..<count {
                let at = box.payloadStart + 8 + entry * width
                let offset = width == 4 ? UInt64(uint32(bytes, at)) : uint64(bytes, at)
                guard offset >= UInt64(from) else { continue }
                let moved = offset + UInt64(shift)
                if width == 4 {
                    guard moved <= UInt64(UInt32.max) else {
                        throw MP4Error(reason: "a chunk offset passes 4 GiB after inserting the vapc box")
                    }
                    bytes.replaceSubrange(at..<at + 4, with: Self.bytes(ofUInt32: UInt32(moved)))
                } else {
                    bytes.replaceSubrange(at..<at + 4, with: Self.bytes(ofUInt32: UInt32(moved >> 32)))
                    bytes.replaceSubrange(at + 4..<at + 8, with: Self.bytes(ofUInt32: UInt32(moved & 0xFFFF_FFFF)))
                }
            }
        }
    }

    /// The first video track's sample description (`vide` handler): size and colour tags.
    static func videoTrack(in bytes: [UInt8]) throws(MP4Error) -> VideoTrack? {
        for moov in try children(of: bytes, in: 0..<bytes.count) where moov.type == "moov" {
            for trak in try children(of: bytes, in: moov.payload) where trak.type == "trak" {
                guard let mdia = try children(of: bytes, in: trak.payload).first(where: { $0.type == "mdia" }) else {
                    continue
                }
                let inMedia = try children(of: bytes, in: mdia.payload)
                // hdlr: version and flags, pre_defined, then the handler type.
                guard let hdlr = inMedia.first(where: { $0.type == "hdlr" }), hdlr.payload.count >= 12,
                    String(decoding: bytes[hdlr.payloadStart + 8..<hdlr.payloadStart + 12], as: UTF8.self) == "vide",
                    let minf = inMedia.first(where: { $0.type == "minf" }),
                    let stbl = try children(of: bytes, in: minf.payload).first(where: { $0.type == "stbl" }),
                    let stsd = try children(of: bytes, in: stbl.payload).first(where: { $0.type == "stsd" }),
                    stsd.payload.count >= 8
                else { continue }
                // stsd: version and flags, entry count, then sample entries. A visual sample entry
                // has 24 bytes of reserved fields, 16-bit width and height, and 50 more bytes
                // before its own boxes (avcC, colr, ...).
                let entries = try children(of: bytes, in: (stsd.payloadStart + 8)..<stsd.end)
                guard let entry = entries.first, entry.payload.count >= 78 else { continue }
                let at = entry.payloadStart + 24
                var track = VideoTrack(
                    codec: entry.type, width: Int(bytes[at]) << 8 | Int(bytes[at + 1]),
                    height: Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]))
                let boxes = (try? children(of: bytes, in: (entry.payloadStart + 78)..<entry.end)) ?? []
                // colr "nclx": primaries, transfer, matrix (16 bits each), then the full-range bit.
                if let colr = boxes.first(where: { $0.type == "colr" }), colr.payload.count >= 11,
                    String(decoding: bytes[colr.payloadStart..<colr.payloadStart + 4], as: UTF8.self) == "nclx"
                {
                    let matrix = colr.payloadStart + 8
                    track.matrix = Int(bytes[matrix]) << 8 | Int(bytes[matrix + 1])
                    track.fullRange = bytes[colr.payloadStart + 10] & 0x80 != 0
                }
                return track
            }
        }
        return nil
    }

    static func uint32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func uint64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        bytes[at..<at + 8].reduce(0) { $0 << 8 | UInt64($1) }
    }

    static func bytes(ofUInt32 value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
