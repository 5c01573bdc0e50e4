import Foundation

/// Draws for the generators, from the seeded SplitMix64 stream of the fuzz tests.
extension FuzzRandom {
    /// A number in 0..<1.
    mutating func unit() -> Double { Double(next(1 << 30)) / Double(1 << 30) }

    /// True with probability `probability`.
    mutating func chance(_ probability: Double) -> Bool { unit() < probability }

    /// A number in `low…high` (a million steps).
    mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next(1_000_001)) / 1_000_000
    }

    /// A number in `range`.
    mutating func number(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + unit() * (range.upperBound - range.lowerBound)
    }

    /// An integer in `range`.
    mutating func integer(_ range: ClosedRange<Int>) -> Int { range.lowerBound + next(range.count) }

    /// One element of a non-empty list.
    mutating func pick<Element>(_ list: [Element]) -> Element { list[next(list.count)] }

    /// One element of a list, nil when it is empty.
    /// `count` different elements of `list` (all of them when it has fewer), in random order.
    mutating func sample<Element>(_ list: [Element], _ count: Int) -> [Element] {
        var rest = list
        var taken: [Element] = []
        while taken.count < count, !rest.isEmpty { taken.append(rest.remove(at: next(rest.count))) }
        return taken
    }

    mutating func pickIfAny<Element>(_ list: [Element]) -> Element? { list.isEmpty ? nil : list[next(list.count)] }

    /// A colour `#RRGGBB`, or `#RRGGBBAA` one time in four.
    mutating func colour() -> String {
        let rgb = String(format: "#%02X%02X%02X", next(256), next(256), next(256))
        return chance(0.25) ? rgb + String(format: "%02X", next(256)) : rgb
    }
}
