import Testing

@testable import RenderFarm

@Suite("MP4 boxes: the vapc box and chunk offsets")
struct MP4BoxesTests {
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        MP4Boxes.bytes(ofUInt32: UInt32(8 + payload.count)) + Array(type.utf8) + payload
    }

    /// ftyp, moov with one stco (2 chunks) and one co64 (1 chunk) pointing into mdat, then mdat.
    static func file() -> [UInt8] {
        let ftyp = box("ftyp", Array("isom".utf8) + [0, 0, 2, 0])
        let stco = box(
            "stco", [0, 0, 0, 0, 0, 0, 0, 2] + MP4Boxes.bytes(ofUInt32: 100) + MP4Boxes.bytes(ofUInt32: 104))
        let co64 = box("co64", [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0] + MP4Boxes.bytes(ofUInt32: 108))
        let stbl = box("stbl", stco + co64)
        let moov = box("moov", box("trak", box("mdia", box("minf", stbl))))
        let mdat = box("mdat", [UInt8](repeating: 7, count: 16))
        return ftyp + moov + mdat
    }

    @Test("inserting vapc after ftyp moves every chunk offset by the box's size")
    func insert() throws {
        let original = Self.file()
        let json = Array("{\"info\":{}}".utf8)
        let packed = try MP4Boxes.insertingVapc(json, into: original)
        let shift = 8 + json.count
        #expect(packed.count == original.count + shift)
        let top = try MP4Boxes.children(of: packed, in: 0..<packed.count)
        #expect(top.map(\.type) == ["ftyp", "vapc", "moov", "mdat"])
        #expect(try MP4Boxes.vapcPayload(in: packed).map(Array.init) == json)
        let stco = packed.indices.first { Array(packed[$0..<min($0 + 4, packed.count)]) == Array("stco".utf8) } ?? 0
        #expect(MP4Boxes.uint32(packed, stco + 12) == UInt32(100 + shift))
        #expect(MP4Boxes.uint32(packed, stco + 16) == UInt32(104 + shift))
        let co64 = packed.indices.first { Array(packed[$0..<min($0 + 4, packed.count)]) == Array("co64".utf8) } ?? 0
        #expect(MP4Boxes.uint64(packed, co64 + 12) == UInt64(108 + shift))
    }

    @Test("files without ftyp first, with a vapc already, or with broken sizes are refused")
    func refused() throws {
        let json = Array("{}".utf8)
        #expect(throws: MP4Error.self) { try MP4Boxes.insertingVapc(json, into: Self.box("moov", [])) }
        let twice = try MP4Boxes.insertingVapc(json, into: Self.file())
        #expect(throws: MP4Error.self) { try MP4Boxes.insertingVapc(json, into: twice) }
        #expect(throws: MP4Error.self) { try MP4Boxes.children(of: [0, 0, 0, 99, 1, 2, 3, 4], in: 0..<8) }
        #expect(try MP4Boxes.vapcPayload(in: Self.file()) == nil)
    }
}
