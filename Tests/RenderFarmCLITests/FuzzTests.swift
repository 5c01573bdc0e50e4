import Foundation
import Testing

/// Job files are data from strangers: mutated example jobs never crash the renderer, never pass
/// when they are invalid, and never touch an existing output folder. The renders run in this process
/// (`CLI.run`): what is checked is the engine's answer to a job file, and a crash would end the test run.
@Suite("Hostile input fuzzing", .serialized)
struct FuzzTests {
    /// `make test` runs a quick sample; `make fuzz` sets RENDERFARM_FUZZ_CASES=1000.
    static let caseCount = ProcessInfo.processInfo.environment["RENDERFARM_FUZZ_CASES"].flatMap { Int($0) } ?? 300
    static let seed: UInt64 = 20_261_129

    enum Mutation: CaseIterable {
        case bitFlip, truncate, typeSwap, hugeNumber, deepNesting, duplicateKey, unknownKey, nan, badUTF8, empty,
            garbage

        /// Every mutation but a bit flip makes any job invalid.
        var mustFail: Bool { self != .bitFlip }
    }

    /// The example jobs, shortened to a few frames and pointed at the folder `out`.
    static func baseJobs() throws -> [Data] {
        let folder = Binary.packageRoot.appendingPathComponent("jobs")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
            .sorted()
            .map { name in
                let data = try Data(contentsOf: folder.appendingPathComponent(name))
                var job = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                job["duration"] = 0.05
                job["frames"] = nil
                var output = job["output"] as? [String: Any] ?? [:]
                output["dir"] = "out"
                job["output"] = output
                return try JSONSerialization.data(withJSONObject: job, options: [.sortedKeys])
            }
    }

    @Test("mutated jobs exit with a documented code and a located message, never crash, never touch output")
    func fuzz() throws {
        let bases = try Self.baseJobs()
        let folder = try TemporaryFolder()
        let job = folder.url.appendingPathComponent("case.json")
        let out = folder.url.appendingPathComponent("out")
        // The existing output comes from a job that names no asset file (the scratch folder has none).
        try #require(bases.first { !String(decoding: $0, as: UTF8.self).contains("assets") }).write(to: job)
        let setup = CLI.run(["render", job.path, "--progress", "none"])
        try #require(setup.status == 0, "\(setup.stderr)")
        var snapshot = try Snapshot(out)
        var random = FuzzRandom(seed: Self.seed)
        var counts: [Int32: Int] = [:]

        for number in 0..<Self.caseCount {
            let mutation = Mutation.allCases[random.next(Mutation.allCases.count)]
            let base = bases[random.next(bases.count)]
            let mutated = mutate(base, mutation, &random)
            try mutated.write(to: job)
            let result = CLI.run(["render", job.path, "--progress", "none", "-j", "1"])
            counts[result.status, default: 0] += 1
            let label =
                "case \(number) (\(mutation), seed \(Self.seed)): \(String(decoding: mutated.prefix(300), as: UTF8.self))"
            #expect(
                [0, 65, 73, 74].contains(result.status),
                "undocumented exit \(result.status): \(label)\n\(result.stderr)")
            if result.status == 0 {
                // A sound's `at` takes a list of times as well as a moment: a list swapped in for one is valid.
                let atTimes = #""at":[1]"#
                let valid =
                    mutation == .typeSwap && String(decoding: mutated, as: UTF8.self).contains(atTimes)
                    && !String(decoding: base, as: UTF8.self).contains(atTimes)
                #expect(!mutation.mustFail || valid, "an invalid job rendered: \(label)")
                #expect(try Manifest(folder: out).complete)
                snapshot = try Snapshot(out)
                continue
            }
            #expect(try Snapshot(out) == snapshot, "a failing run changed the existing output: \(label)")
            let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("renderfarm: error: ") }
            #expect(!errors.isEmpty, "no message: \(label)")
            if result.status == 65 {
                for line in errors {
                    #expect(line.contains("case.json: "), "message without its file: \(line)")
                    #expect(Self.locates(line), "message without a location in the file: \(line)")
                }
            }
        }
        #expect((counts[65] ?? 0) > Self.caseCount / 2, "most mutants should be refused: \(counts)")
    }

    /// "…case.json: line 3, column 7: …" or "…case.json: layers[0].params.rate: …".
    static func locates(_ line: Substring) -> Bool {
        guard let range = line.range(of: "case.json: ") else { return false }
        let rest = line[range.upperBound...]
        if rest.hasPrefix("line ") { return true }
        guard let colon = rest.range(of: ": ") else { return false }
        let location = rest[..<colon.lowerBound]
        // A path such as layers[0].params.rate or output["odd key"]; syntax errors give a line.
        return !location.isEmpty
            && (location.allSatisfy { $0.isLetter || $0.isNumber || "[]._-".contains($0) }
                || location.contains("[\""))
    }

    func mutate(_ base: Data, _ mutation: Mutation, _ random: inout FuzzRandom) -> Data {
        var bytes = [UInt8](base)
        switch mutation {
        case .bitFlip:
            let index = random.next(bytes.count)
            bytes[index] ^= UInt8(1 << random.next(8))
        case .truncate:
            bytes = Array(bytes.prefix(1 + random.next(bytes.count - 2)))
        case .empty:
            bytes = []
        case .garbage:
            bytes = (0..<(1 + random.next(64))).map { _ in UInt8(random.next(256)) }
        case .typeSwap, .hugeNumber, .nan, .deepNesting:
            guard var value = try? JSONSerialization.jsonObject(with: base) else { return base }
            let pick = random.next(1000)
            let replacement: (Any) -> Any = { old in
                switch mutation {
                case .typeSwap:
                    let swaps: [Any] = ["x", 7.5, true, NSNull(), [1], ["k": 1]]
                    let candidates = swaps.filter { Self.kind($0) != Self.kind(old) }
                    return candidates[pick % candidates.count]
                case .hugeNumber: return 1e300
                case .nan: return "__NAN__"
                default:
                    var wrapped: Any = old
                    for _ in 0..<40 { wrapped = [wrapped] }
                    return wrapped
                }
            }
            let numbersOnly = mutation == .hugeNumber || mutation == .nan
            let target = random.next(max(1, Self.count(value, numbersOnly: numbersOnly)))
            var counter = 0
            value = Self.replace(value, at: target, numbersOnly: numbersOnly, counter: &counter, with: replacement)
            guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]) else {
                return base
            }
            let text = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\"__NAN__\"", with: "NaN")
            bytes = Array(text.utf8)
        case .duplicateKey, .unknownKey:
            let braces = bytes.indices.filter { bytes[$0] == UInt8(ascii: "{") }
            let at = braces[random.next(braces.count)] + 1
            let insert = mutation == .duplicateKey ? #""dup":1,"dup":2,"# : #""zzfuzz":1,"#
            bytes.insert(contentsOf: Array(insert.utf8), at: at)
        case .badUTF8:
            let quotes = bytes.indices.filter { bytes[$0] == UInt8(ascii: "\"") }
            bytes.insert(contentsOf: [0xC3, 0x28, 0xFF], at: quotes[random.next(quotes.count)] + 1)
        }
        return Data(bytes)
    }

    /// A value's JSON type; numbers and booleans count as one (Foundation cannot tell them apart).
    static func kind(_ value: Any) -> String {
        switch value {
        case is String: "string"
        case is NSNull: "null"
        case is [Any]: "array"
        case is [String: Any]: "object"
        default: "number"
        }
    }

    /// How many values (or numbers) the tree holds below its root.
    static func count(_ value: Any, numbersOnly: Bool) -> Int {
        let children: [Any] = (value as? [String: Any]).map { Array($0.values) } ?? (value as? [Any]) ?? []
        return children.reduce(0) { total, child in
            let counts = !numbersOnly || (child is NSNumber && !(child is Bool))
            return total + (counts ? 1 : 0) + count(child, numbersOnly: numbersOnly)
        }
    }

    /// Replaces the `target`-th value below the root (in sorted-key order) with `replacement(old)`.
    static func replace(
        _ value: Any, at target: Int, numbersOnly: Bool, counter: inout Int, with replacement: (Any) -> Any
    ) -> Any {
        func visit(_ child: Any) -> Any {
            let counts = !numbersOnly || (child is NSNumber && !(child is Bool))
            if counts {
                defer { counter += 1 }
                if counter == target { return replacement(child) }
            }
            return replace(child, at: target, numbersOnly: numbersOnly, counter: &counter, with: replacement)
        }
        if let object = value as? [String: Any] {
            var copy = object
            for key in object.keys.sorted() { copy[key] = visit(object[key] as Any) }
            return copy
        }
        if let array = value as? [Any] { return array.map(visit) }
        return value
    }
}

/// Names, sizes, modification times and checksums of every file in a folder.
struct Snapshot: Equatable {
    var files: [String: String]

    /// Every file under `folder` (subfolders included, such as the cache), by relative path.
    init(_ folder: URL) throws {
        files = [:]
        guard let walk = FileManager.default.enumerator(atPath: folder.path) else { return }
        while let name = walk.nextObject() as? String {
            let path = folder.appendingPathComponent(name)
            let attributes = try FileManager.default.attributesOfItem(atPath: path.path)
            guard attributes[.type] as? FileAttributeType != .typeDirectory else {
                files[name + "/"] = "folder"
                continue
            }
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            files[name] = "\(attributes[.size] ?? 0) \(modified) \(sha256(try Data(contentsOf: path)))"
        }
    }
}

/// A SplitMix64 stream, so every fuzz case can be reproduced from the printed seed.
struct FuzzRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(max(1, bound)))
    }
}
