/// Binary search over positions `0..<count` along which a condition, once true, stays true: the
/// interval index of the effects, whose items are numbered in the order they spawn.
public enum SortedIndex {
    /// The first position in `0..<count` where `holds` is true, or `count` when there is none.
    public static func first(in count: Int, where holds: (Int) -> Bool) -> Int {
        var (low, high) = (0, count)
        while low < high {
            let middle = (low + high) / 2
            if holds(middle) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
