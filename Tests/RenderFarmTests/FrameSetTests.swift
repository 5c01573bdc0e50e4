import Testing

@testable import RenderFarm
@testable import RenderFarmJobs
@testable import RenderFarmOutput

@Suite("Frame sets (OpenJD range grammar)")
struct FrameSetTests {
    @Test(
        "parses the grammar's forms",
        arguments: [
            ("1-5", [1, 2, 3, 4, 5]),
            ("1-10:3", [1, 4, 7, 10]),
            ("1,3,5-9", [1, 3, 5, 6, 7, 8, 9]),
            ("9-5:-2", [5, 7, 9]),
            ("7", [7]),
            ("3,1,3,2", [1, 2, 3]),
            (" 0 - 2 ", [0, 1, 2]),
        ])
    func parses(text: String, frames: [Int]) throws {
        #expect(try FrameSet(parsing: text).frames == frames)
    }

    @Test(
        "rejects malformed sets with a reason",
        arguments: [
            "", "1-", "-", "a-b", "1-5:0", "1-5:x", "5-1", "1,,2", "1-5:2:3", "1.5", "0-2000000000",
        ])
    func rejects(text: String) {
        #expect(throws: FrameSetError.self) { try FrameSet(parsing: text) }
    }

    @Test("refuses sets larger than the limit before building them")
    func limit() {
        #expect(throws: FrameSetError.self) { try FrameSet(parsing: "0-999999", limit: 1000) }
    }

    @Test("compresses runs: [3, 7, 8, 9] is \"3,7-9\"")
    func compress() {
        #expect(FrameSet.compress([3, 7, 8, 9]) == "3,7-9")
        #expect(FrameSet.compress([]) == "")
        #expect(FrameSet.compress([0, 1, 2, 4]) == "0-2,4")
        #expect(FrameSet([5, 1, 2]).description == "1-2,5")
    }

    @Test("contiguous shards split evenly and cover the set exactly once", arguments: [1, 2, 3, 7])
    func contiguousShards(count: Int) {
        let frames = FrameSet.all(100)
        let parts = (0..<count).map { Shard.part(index: $0, count: count, interleaved: false).part(of: frames) }
        #expect(parts.flatMap(\.frames) == frames.frames)
        let sizes = parts.map(\.count)
        #expect((sizes.max() ?? 0) - (sizes.min() ?? 0) <= 1)
    }

    @Test("interleaved shards take every N-th frame")
    func interleavedShards() {
        let part = Shard.part(index: 1, count: 3, interleaved: true).part(of: FrameSet.all(10))
        #expect(part.frames == [1, 4, 7])
    }
}
