import Foundation

/// Random jobs for the trace-against-pixels test: one tracing effect layer (parabolic-drop,
/// floating-heart or physics-bounce) inside up to three nested groups, the layer and each group
/// with a random transform (anchor, translation, uniform, non-uniform or mirroring scale, rotation,
/// keyframed position, scale and rotation), times (start, speed, loop, end) and opacity, on a small
/// transparent canvas.
struct PlacedJob {
    let seed: UInt64
    let effect: String
    let canvasScale: Double
    /// The job file's text.
    let text: String

    static let effects = ["parabolic-drop", "floating-heart", "physics-bounce"]
    static let fps = 10.0
    static let duration = 2.0

    /// The job of `seed`, writing its frames to `output`.
    init(seed: UInt64, output: String) {
        var random = FuzzRandom(seed: seed)
        let (width, height) = (random.pick([100.0, 120, 140]), random.pick([100.0, 120, 140]))
        self.seed = seed
        effect = Self.effects[random.next(Self.effects.count)]
        canvasScale = random.pick([1.0, 1.5, 2])
        var generator = Generator(random: random, width: width, height: height)
        var node: [String: Any] = ["effect": effect, "params": generator.params(of: effect)]
        let depth = generator.random.next(4)
        var placed = generator.fields(of: &node, isLayer: true)
        for _ in 0..<depth {
            var group: [String: Any] = ["group": [node]]
            placed = generator.fields(of: &group, isLayer: false) || placed
            node = group
        }
        if !placed { node["transform"] = ["position": [width / 2 + 17, height / 2 - 9], "rotation": 25] }
        let job: [String: Any] = [
            "name": "placed", "seed": Int(seed % 1_000_000),
            "canvas": ["width": width, "height": height, "scale": canvasScale, "background": "#00000000"],
            "fps": Self.fps, "duration": Self.duration, "output": ["dir": output], "layers": [node],
        ]
        let data = (try? JSONSerialization.data(withJSONObject: job, options: [.sortedKeys])) ?? Data()
        text = String(decoding: data, as: UTF8.self)
    }

    /// Draws the parts of one job from a seeded stream.
    private struct Generator {
        var random: FuzzRandom
        let width: Double
        let height: Double

        /// Parameters whose items are solid at their traced point (boxes, discs), or hearts.
        mutating func params(of effect: String) -> [String: Any] {
            let shape = random.pick(["box", "circle"])
            switch effect {
            case "parabolic-drop":
                var params: [String: Any] = [
                    "count": 2 + random.next(2), "size": round(random.uniform(16, 22)), "shape": shape,
                    "color": "#3366CC", "stagger": round(random.uniform(0.1, 0.4)),
                    "arcHeight": round(random.uniform(20, 60)),
                    "from": ["x": round(width * 0.1), "y": round(height * 0.2), "width": 20, "height": 20],
                    "target": [
                        "x": round(width * 0.45), "y": round(height * 0.75), "width": round(width * 0.3), "height": 10,
                    ],
                ]
                if random.chance(0.3) { params["onLand"] = "bounce" }
                return params
            case "floating-heart":
                return [
                    "emitter": [round(width / 2 + random.uniform(-20, 20)), round(height - 12)],
                    "size": round(random.uniform(24, 32)), "rate": round(random.uniform(1.5, 4)), "lifetime": 2.5,
                    "colors": ["#E0245E", "#2E7D32"],
                ]
            default:
                let items = (0..<2).map { index in
                    [
                        "at": [round(width * (0.3 + 0.4 * Double(index))), round(random.uniform(15, height / 2))],
                        "size": round(random.uniform(16, 22)), "shape": shape, "color": "#CC6633",
                    ] as [String: Any]
                }
                return ["items": items, "elasticity": round(random.uniform(0.2, 0.6))]
            }
        }

        /// Adds random host fields to a layer or group; true when it got a transform.
        mutating func fields(of node: inout [String: Any], isLayer: Bool) -> Bool {
            if random.chance(0.3) { node["start"] = round(random.uniform(0, 0.4)) }
            if random.chance(0.25) { node["speed"] = round(random.uniform(0.6, 1.5)) }
            if isLayer && random.chance(0.15) { node["loop"] = round(random.uniform(1.2, 1.8)) }
            if random.chance(0.1) { node["end"] = 1.6 }
            if random.chance(0.3) {
                node["opacity"] =
                    random.chance(0.5)
                    ? round(random.uniform(0.5, 1)) as Any
                    : keyframes([0.4, 1.0]) as Any
            }
            guard random.chance(isLayer ? 0.8 : 0.7) else { return false }
            node["transform"] = transform()
            return true
        }

        private mutating func transform() -> [String: Any] {
            var transform: [String: Any] = [:]
            if random.chance(0.7) {
                transform["anchor"] = [
                    round(random.uniform(0.3, 0.7) * width), round(random.uniform(0.3, 0.7) * height),
                ]
            }
            switch random.next(5) {
            case 0: break
            case 1: transform["position"] = keyframes([point(), point()])
            default: transform["position"] = point()
            }
            switch random.next(6) {
            case 0: break
            case 1: transform["scale"] = keyframes([round(factor()), round(factor())])
            case 2, 3: transform["scale"] = round(factor())
            default: transform["scale"] = [round(factor()), round(factor())]
            }
            switch random.next(4) {
            case 0: break
            case 1: transform["rotation"] = keyframes([round(random.uniform(-90, 90)), round(random.uniform(-90, 90))])
            default: transform["rotation"] = round(random.uniform(-180, 180))
            }
            return transform
        }

        /// A point in the middle of the canvas.
        private mutating func point() -> [Double] {
            [round(random.uniform(0.35, 0.65) * width), round(random.uniform(0.35, 0.65) * height)]
        }

        /// A scale factor of 0.75…1.35, mirrored one time in eight.
        private mutating func factor() -> Double {
            random.uniform(0.75, 1.35) * (random.chance(0.125) ? -1 : 1)
        }

        /// Two keyframes inside the job's first seconds, eased or linear.
        private mutating func keyframes(_ values: [Any]) -> [String: Any] {
            let end = round(random.uniform(0.6, 1.6))
            return [
                "keyframes": [
                    ["t": round(random.uniform(0, 0.4)), "value": values[0]],
                    ["t": end, "value": values[1], "timing": random.pick(["linear", "easeInEaseOut"])],
                ]
            ]
        }

        /// Two decimals: short job files that read well in a failure message.
        private func round(_ value: Double) -> Double { (value * 100).rounded() / 100 }
    }
}
