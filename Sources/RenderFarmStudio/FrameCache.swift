/// Encoded frames by key (frame fingerprint, overlay), least recently used dropped first once
/// their bytes pass the budget. Not `Sendable`: lives inside the session's lock.
struct FrameCache {
    private var entries: [String: (bytes: [UInt8], used: UInt64)] = [:]
    private var clock: UInt64 = 0
    private var total = 0
    let budget: Int
    private(set) var hits = 0
    private(set) var misses = 0

    init(budget: Int) { self.budget = budget }

    mutating func get(_ key: String) -> [UInt8]? {
        guard let entry = entries[key] else {
            misses += 1
            return nil
        }
        hits += 1
        clock += 1
        entries[key]?.used = clock
        return entry.bytes
    }

    mutating func put(_ key: String, _ bytes: [UInt8]) {
        guard bytes.count <= budget else { return }
        clock += 1
        if let old = entries[key] { total -= old.bytes.count }
        entries[key] = (bytes, clock)
        total += bytes.count
        while total > budget, let oldest = entries.min(by: { $0.value.used < $1.value.used }) {
            total -= oldest.value.bytes.count
            entries[oldest.key] = nil
        }
    }
}
