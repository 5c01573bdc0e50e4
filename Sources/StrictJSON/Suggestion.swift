/// "Did you mean …?" for misspelt keys, parameter names and effect ids.
public enum Suggestion {
    /// The candidate closest to `word` by edit distance, when it is close enough to be a typo.
    public static func closest(to word: String, in candidates: some Sequence<String>) -> String? {
        let target = Array(word.lowercased())
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(target, Array(candidate.lowercased()))
            if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        if let best, best.distance <= max(2, target.count / 3) { return best.candidate }
        // An abbreviation (`dur` for `duration`) is far in edit distance but plainly meant.
        guard target.count >= 3 else { return nil }
        return candidates.first { $0.lowercased().hasPrefix(String(target)) }
    }

    /// " (did you mean \"rate\"?)" or "".
    public static func hint(for word: String, in candidates: some Sequence<String>) -> String {
        closest(to: word, in: candidates).map { " (did you mean \"\($0)\"?)" } ?? ""
    }

    /// The message for an object key outside `allowed`:
    /// `unknown key (did you mean "shape"?); allowed: at, size, shape`.
    public static func unknownKey(_ key: String, allowed: [String]) -> String {
        "unknown key" + hint(for: key, in: allowed) + "; allowed: " + allowed.joined(separator: ", ")
    }

    /// Levenshtein distance.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for (i, left) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, right) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (left == right ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
