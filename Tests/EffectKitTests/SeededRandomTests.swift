import Testing

@testable import EffectKit

/// Pearson's chi-square statistic of bin counts against a uniform expectation.
private func chiSquare(_ counts: [Int]) -> Double {
    let expected = Double(counts.reduce(0, +)) / Double(counts.count)
    return counts.reduce(0.0) { sum, count in
        let difference = Double(count) - expected
        return sum + difference * difference / expected
    }
}

@Suite("SeededRandom")
struct SeededRandomTests {
    @Test("the stream is SplitMix64: reference outputs for seed 0")
    func reference() {
        var random = SeededRandom(seed: 0)
        #expect(random.next() == 0xE220_A839_7B1D_CDAF)
        #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(random.next() == 0x06C4_5D18_8009_454F)
    }

    @Test("the same seed gives the same sequence")
    func deterministic() {
        var a = SeededRandom(seed: 0xDEAD_BEEF)
        var b = SeededRandom(seed: 0xDEAD_BEEF)
        for _ in 0..<1000 {
            #expect(a.next() == b.next())
            #expect(a.uniform(37) == b.uniform(37))
            #expect(a.unit() == b.unit())
        }
    }

    @Test("different seeds give different sequences")
    func differentSeeds() {
        var a = SeededRandom(seed: 1)
        var b = SeededRandom(seed: 2)
        let first = (0..<16).map { _ in a.next() }
        let second = (0..<16).map { _ in b.next() }
        #expect(first != second)
        #expect(Set(first).isDisjoint(with: second))
    }

    @Test("uniform(n) stays in [0, n)", arguments: [2, 3, 5, 10, 72, 255, 1000, UInt32.max])
    func bounds(_ upperBound: UInt32) {
        var random = SeededRandom(seed: UInt64(upperBound))
        for _ in 0..<10_000 {
            #expect(random.uniform(upperBound) < upperBound)
        }
    }

    @Test("uniform(n) is 0 when n < 2, like arc4random_uniform")
    func smallBounds() {
        var random = SeededRandom(seed: 7)
        #expect(random.uniform(0) == 0)
        #expect(random.uniform(1) == 0)
    }

    @Test("uniform(10) over 60 000 draws passes chi-square (9 dof, bound 27.88 = p 0.001)")
    func chiSquareTen() {
        var random = SeededRandom(seed: 42)
        var counts = [Int](repeating: 0, count: 10)
        for _ in 0..<60_000 {
            counts[Int(random.uniform(10))] += 1
        }
        #expect(chiSquare(counts) < 27.88)
    }

    @Test("uniform(255) over 60 000 draws passes chi-square (254 dof, bound 330 ≈ p 0.001)")
    func chiSquareColour() {
        var random = SeededRandom(seed: 2024)
        var counts = [Int](repeating: 0, count: 255)
        for _ in 0..<60_000 {
            counts[Int(random.uniform(255))] += 1
        }
        #expect(chiSquare(counts) < 330)
    }

    @Test("unit() is in [0, 1) with mean about 1/2; uniform(in:) stays in its range")
    func unitInterval() {
        var random = SeededRandom(seed: 99)
        var sum = 0.0
        let count = 60_000
        for _ in 0..<count {
            let value = random.unit()
            #expect(value >= 0 && value < 1)
            sum += value
        }
        // Standard error of the mean is 1/√(12·60 000) ≈ 0.0012: allow 5 of them.
        #expect(abs(sum / Double(count) - 0.5) < 0.006)
        for _ in 0..<1000 {
            let value = random.uniform(in: -3...5)
            #expect(value >= -3 && value <= 5)
        }
        #expect(random.uniform(in: 2...2) == 2)
    }
}
