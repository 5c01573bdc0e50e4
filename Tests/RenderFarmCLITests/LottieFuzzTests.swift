import Foundation
import Testing

/// Lottie files are data from strangers too: mutated versions of the fixture never crash `validate` or
/// `render`, and every refused one gets a message that names the layer parameter and the place in the file.
/// Both run in this process (`CLI.run`), as the job-file fuzz does: a crash in rlottie or the plugin ends the
/// test run, which fails it, instead of costing a launch per file.
@Suite("Lottie hostile files", .serialized)
struct LottieFuzzTests {
    /// `make test` runs three cases of each mutation; `make fuzz` sets RENDERFARM_LOTTIE_FUZZ_CASES=1000.
    static let caseCount =
        ProcessInfo.processInfo.environment["RENDERFARM_LOTTIE_FUZZ_CASES"].flatMap { Int($0) }
        ?? (3 * Mutation.allCases.count)
    static let seed =
        ProcessInfo.processInfo.environment["RENDERFARM_LOTTIE_FUZZ_SEED"].flatMap { UInt64($0) }
        ?? 20_261_130

    enum Mutation: CaseIterable {
        case dropKey, typeSwap, hugeNumber, fraction, negative, parentCycle, precompLoop, vertexMismatch,
            expression, manyCopies, gradientStops, truncate, bitFlip, textLayer, imageAsset, reversedKeyframes,
            deepGroups, duplicateLayers, dashes, anyNode, anyNumber, anyMember
    }

    @Test("mutated Lottie files: no crash, a located message for each refused one")
    func fuzz() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(try LottieFixture.job(params: ["loop": true]), to: "job.json")
        let base = try #require(try JSONSerialization.jsonObject(with: Data(LottieFixture.json.utf8)) as? [String: Any])
        var random = FuzzRandom(seed: Self.seed)
        var refused = 0
        var accepted = 0
        for number in 0..<Self.caseCount {
            let mutation = Mutation.allCases[number % Mutation.allCases.count]
            let data = try mutate(base, mutation, &random)
            try data.write(to: folder.url.appendingPathComponent("anim.json"))
            let label = "case \(number) (\(mutation), seed \(Self.seed)): \(String(decoding: data, as: UTF8.self))"
            let validate = CLI.run(["validate", job])
            #expect([0, 65].contains(validate.status), "exit \(validate.status): \(label)\n\(validate.stderr)")
            if validate.status == 65 {
                refused += 1
                #expect(
                    validate.stderr.contains("layers[0].params.file: anim.json"),
                    "\(label)\n\(validate.stderr)")
                #expect(Self.located(validate.stderr), "no place in the file: \(label)\n\(validate.stderr)")
            } else if validate.status == 0 {
                accepted += 1
                let render = CLI.run([
                    "render", job, "--frames", "0,4,9", "--force", "--progress", "none", "-j", "2",
                ])
                #expect(render.status == 0, "\(label)\n\(render.stderr)")
            }
        }
        #expect(refused + accepted == Self.caseCount)
        #expect(refused >= Self.caseCount / 2, "most mutations must be refused (refused \(refused))")
        report("lottie fuzz: \(Self.caseCount) files, \(refused) refused with a located message, \(accepted) rendered")
    }

    /// A message places the problem: a JSON path in the file (`layers[0].ks…`, `op`, `v`), or a line and column.
    static func located(_ text: String) -> Bool {
        text.range(of: #"is refused: [A-Za-z]+(\[\d+\])?[.:\[]"#, options: .regularExpression) != nil
            || text.range(of: #"is not valid JSON: line \d+, column \d+"#, options: .regularExpression) != nil
    }

    static var hostileValues: [Any] {
        [
            1e300, -1e300, 0, -1, 0.5, 2_147_483_648, 1e7, "x", "", [Any](), [1], ["k": 1] as [String: Any], NSNull(),
            true,
            Array(repeating: 1e5, count: 2000),
        ]
    }

    /// Counts down to the value to change, in a fixed (pre-order, sorted keys) walk of the tree.
    final class Cursor {
        var remaining: Int
        init(_ remaining: Int) { self.remaining = remaining }
    }

    /// How many values (or numbers, or object members) the tree holds, in the walks' order.
    static func count(_ node: Any, numbersOnly: Bool = false, members: Bool = false) -> Int {
        var total = members ? 0 : (!numbersOnly || node is NSNumber ? 1 : 0)
        if let object = node as? [String: Any] {
            for (_, value) in object {
                total += (members ? 1 : 0) + count(value, numbersOnly: numbersOnly, members: members)
            }
        } else if let array = node as? [Any] {
            for element in array { total += count(element, numbersOnly: numbersOnly, members: members) }
        }
        return total
    }

    /// The tree with the cursor's value (or number) replaced by `replacement`.
    static func replacing(_ node: Any, _ cursor: Cursor, numbersOnly: Bool, with replacement: Any) -> Any {
        if !numbersOnly || node is NSNumber {
            cursor.remaining -= 1
            if cursor.remaining < 0 { return replacement }
        }
        if var object = node as? [String: Any] {
            for (key, value) in object.sorted(by: { $0.key < $1.key }) where cursor.remaining >= 0 {
                object[key] = replacing(value, cursor, numbersOnly: numbersOnly, with: replacement)
            }
            return object
        }
        if var array = node as? [Any] {
            for index in array.indices where cursor.remaining >= 0 {
                array[index] = replacing(array[index], cursor, numbersOnly: numbersOnly, with: replacement)
            }
            return array
        }
        return node
    }

    /// The tree without the cursor's object member.
    static func dropping(_ node: Any, _ cursor: Cursor) -> Any {
        if var object = node as? [String: Any] {
            for (key, value) in object.sorted(by: { $0.key < $1.key }) where cursor.remaining >= 0 {
                cursor.remaining -= 1
                object[key] = cursor.remaining < 0 ? nil : dropping(value, cursor)
            }
            return object
        }
        if var array = node as? [Any] {
            for index in array.indices where cursor.remaining >= 0 { array[index] = dropping(array[index], cursor) }
            return array
        }
        return node
    }

    private func mutate(_ base: [String: Any], _ mutation: Mutation, _ random: inout FuzzRandom) throws -> Data {
        var document = base
        var layers = document["layers"] as? [[String: Any]] ?? []
        let layer = random.next(layers.count)
        switch mutation {
        case .dropKey:
            let keys = ["ks", "ty", "shapes", "ip", "op", "fr", "w", "h", "v", "layers"]
            let key = keys[random.next(keys.count)]
            if random.next(2) == 0, document[key] != nil { document[key] = nil } else { layers[layer][key] = nil }
        case .typeSwap:
            let swaps: [Any] = ["text", [1, 2], ["k": 1], true, NSNull()]
            let keys = ["ty", "ind", "ks", "shapes", "w", "fr", "op"]
            let key = keys[random.next(keys.count)]
            let value = swaps[random.next(swaps.count)]
            if ["w", "fr", "op"].contains(key) { document[key] = value } else { layers[layer][key] = value }
        case .hugeNumber:
            let values: [Double] = [1e300, -1e300, 1e9, 4_294_967_296, 1e7]
            let keys = ["w", "h", "fr", "op", "ip"]
            document[keys[random.next(keys.count)]] = values[random.next(values.count)]
        case .fraction:
            let keys = ["w", "h"]
            document[keys[random.next(keys.count)]] = 100.5
            layers[layer]["ind"] = 1.5
        case .negative:
            let keys = ["w", "h", "fr", "op"]
            document[keys[random.next(keys.count)]] = [0, -1, -100][random.next(3)]
        case .parentCycle:
            let other = (layer + 1 + random.next(layers.count - 1)) % layers.count
            layers[layer]["parent"] = layers[other]["ind"]
            layers[other]["parent"] = layers[layer]["ind"]
        case .precompLoop:
            var inner = layers[layer]
            inner["ty"] = 0
            inner["refId"] = "loop"
            document["assets"] = [["id": "loop", "layers": [inner]]]
            layers[layer] = inner
        case .vertexMismatch:
            let count = 1 + random.next(4)
            let path: [String: Any] = [
                "i": Array(repeating: [0, 0], count: count), "o": Array(repeating: [0, 0], count: count + 1),
                "v": Array(repeating: [10, 10], count: count + random.next(3)), "c": true,
            ]
            layers[layer]["shapes"] = [["ty": "gr", "it": [["ty": "sh", "ks": ["a": 0, "k": path]]]]]
        case .expression:
            var transform = layers[layer]["ks"] as? [String: Any] ?? [:]
            transform["p"] = ["a": 0, "k": [0, 0], "x": "wiggle(5, 20)"]
            layers[layer]["ks"] = transform
        case .manyCopies:
            let copies = [101, 100_000_000, 1000][random.next(3)]
            layers[layer]["shapes"] = [
                [
                    "ty": "gr",
                    "it": [
                        [
                            "ty": "rc", "p": ["a": 0, "k": [0, 0]], "s": ["a": 0, "k": [4, 4]], "r": ["a": 0, "k": 0],
                        ],
                        ["ty": "rp", "c": ["a": 0, "k": copies], "o": ["a": 0, "k": 0]],
                    ],
                ]
            ]
        case .gradientStops:
            layers[layer]["shapes"] = [
                [
                    "ty": "gr",
                    "it": [
                        [
                            "ty": "gf", "t": 1, "o": ["a": 0, "k": 100], "s": ["a": 0, "k": [0, 0]],
                            "e": ["a": 0, "k": [10, 0]],
                            "g": ["p": 2 + random.next(50), "k": ["a": 0, "k": [0, 1, 0, 0]]],
                        ]
                    ],
                ]
            ]
        case .truncate, .bitFlip:
            var bytes = [UInt8](try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]))
            if mutation == .truncate {
                bytes.removeLast(1 + random.next(bytes.count - 1))
            } else {
                let index = random.next(bytes.count)
                bytes[index] ^= UInt8(1 << random.next(8))
            }
            return Data(bytes)
        case .textLayer:
            layers[layer]["ty"] = 5
        case .imageAsset:
            document["assets"] = [["id": "image_0", "w": 10, "h": 10, "u": "/etc/", "p": "passwd", "e": 0]]
            layers[layer]["ty"] = 2
            layers[layer]["refId"] = "image_0"
        case .reversedKeyframes:
            var transform = layers[layer]["ks"] as? [String: Any] ?? [:]
            transform["r"] = ["a": 1, "k": [["t": 5, "s": [0]], ["t": 2, "s": [90]]]]
            layers[layer]["ks"] = transform
        case .deepGroups:
            var item: [String: Any] = ["ty": "fl", "c": ["a": 0, "k": [1, 0, 0, 1]]]
            for _ in 0..<(20 + random.next(30)) { item = ["ty": "gr", "it": [item]] }
            layers[layer]["shapes"] = [item]
        case .duplicateLayers:
            layers = Array(repeating: layers[layer], count: 2 + random.next(600))
        case .dashes:
            let lengths: [Double] = [-5, 0, 0.001, 3, 1e6]
            let dashes: [[String: Any]] = ["d", "g", "o"].map { name in
                ["n": name, "v": ["a": 0, "k": lengths[random.next(lengths.count)]]]
            }
            layers[layer]["shapes"] = [
                [
                    "ty": "gr",
                    "it": [
                        [
                            "ty": "rc", "p": ["a": 0, "k": [50, 50]], "s": ["a": 0, "k": [60, 60]],
                            "r": ["a": 0, "k": 0],
                        ],
                        [
                            "ty": "st", "c": ["a": 0, "k": [1, 1, 1, 1]], "o": ["a": 0, "k": 100],
                            "w": ["a": 0, "k": 2],
                            "d": Array(dashes.shuffledDeterministically(&random)),
                        ],
                    ],
                ]
            ]
        case .anyNode, .anyNumber:
            // Anywhere in the document: one value (any, or a number) becomes a hostile one.
            document["layers"] = layers
            let numbersOnly = mutation == .anyNumber
            let cursor = Cursor(random.next(Self.count(document, numbersOnly: numbersOnly)))
            let replacement = Self.hostileValues[random.next(Self.hostileValues.count)]
            let mutated = Self.replacing(document, cursor, numbersOnly: numbersOnly, with: replacement)
            return try JSONSerialization.data(withJSONObject: mutated, options: [.sortedKeys])
        case .anyMember:
            document["layers"] = layers
            let cursor = Cursor(random.next(Self.count(document, members: true)))
            return try JSONSerialization.data(withJSONObject: Self.dropping(document, cursor), options: [.sortedKeys])
        }
        document["layers"] = layers
        return try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
    }
}

extension Array {
    /// The elements in an order drawn from `random` (Fisher–Yates), the same for the same seed.
    fileprivate func shuffledDeterministically(_ random: inout FuzzRandom) -> [Element] {
        var result = self
        for index in result.indices.reversed() where index > 0 {
            result.swapAt(index, random.next(index + 1))
        }
        return result
    }
}
