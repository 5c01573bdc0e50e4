import CairoKit
import Foundation
import Testing

/// The `particles` effect against its formulas (EffectKit article ParticlesEffect): statistics of 10,000
/// particles of generated cells, read back from `renderfarm trace`; exact positions and pixels of seeded
/// particles; the drawing orders; the refusals.
@Suite("particles: CAEmitterLayer's emitter, cells and particles")
struct ParticlesTests {
    static func job(_ params: String, duration: Double = 2, fps: Int = 10, canvas: (Int, Int) = (400, 400)) -> String {
        """
        { "version": 1, "name": "particles", "seed": 5, "fps": \(fps), "duration": \(duration),
          "canvas": { "width": \(canvas.0), "height": \(canvas.1), "scale": 1 },
          "layers": [ { "effect": "particles", "params": { \(params) } } ] }
        """
    }

    /// The mean and variance of `values`.
    static func moments(_ values: [Double]) -> (mean: Double, variance: Double) {
        let mean = values.reduce(0, +) / Double(values.count)
        return (mean, values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1))
    }

    /// Checks that `values` look uniform on `low ± range`: every value inside, the mean within five standard
    /// errors and the variance (range²/3) within 6 %.
    static func expectUniform(_ values: [Double], _ centre: Double, _ range: Double, _ label: String) {
        let (mean, variance) = moments(values)
        let sigma = range / 3.0.squareRoot()
        #expect(values.allSatisfy { abs($0 - centre) <= range * (1 + 1e-9) + 1e-9 }, "\(label): outside ±\(range)")
        #expect(abs(mean - centre) <= 5 * sigma / Double(values.count).squareRoot() + 1e-9, "\(label): mean \(mean)")
        if range > 0 {
            #expect(abs(variance / (sigma * sigma) - 1) < 0.06, "\(label): variance \(variance), not \(sigma * sigma)")
        }
    }

    @Test("10,000 particles of 4 generated cells: lifetimes, speeds, directions, scales, spins, colours, origins")
    func statistics() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["RENDERFARM_PARTICLES_SEED"] ?? "") ?? 0x7061_7274
        for run in 0..<4 {
            var random = FuzzRandom(seed: seed &+ UInt64(run))
            let label = "RENDERFARM_PARTICLES_SEED=\(seed &+ UInt64(run))"
            // 10,000 births in 0.5 s, all alive at 1 s: lifetimes within 1.2…3 s.
            let lifetime = random.uniform(2, 2.5)
            let lifetimeRange = random.uniform(0, 0.8)
            let velocity = random.uniform(50, 300)
            let velocityRange = random.uniform(0, 40)
            let (longitude, latitude) = (random.uniform(-3, 3), random.chance(0.5) ? 0 : random.uniform(-1, 1))
            let emissionRange = random.pick([0, 0.5, 1.5, Double.pi, 2 * Double.pi, random.uniform(0, 6)])
            let scale = random.uniform(0.5, 2)
            let (scaleRange, scaleSpeed) = (random.uniform(0, 0.4), random.uniform(-0.3, 0.3))
            let (spin, spinRange) = (random.uniform(-3, 3), random.uniform(0, 2))
            let color = [random.uniform(0.3, 0.7), random.uniform(0.3, 0.7), random.uniform(0.3, 0.7)]
            let colorRange = [random.uniform(0, 0.25), random.uniform(0, 0.25), random.uniform(0, 0.25)]
            let acceleration = (random.uniform(-50, 50), random.uniform(-50, 200))
            let (shape, mode) = (
                random.pick(["point", "line", "rectangle", "circle"]), random.pick(["outline", "volume", "points"])
            )
            let size = (random.uniform(20, 200), random.uniform(20, 200))
            let hex = color.map { String(format: "%02X", Int(($0 * 255).rounded())) }.joined()
            let rgb = hex.chunked()
            let cell = """
                { "birthRate": 20000, "duration": 0.5, "lifetime": \(lifetime), "lifetimeRange": \(lifetimeRange),
                  "velocity": \(velocity), "velocityRange": \(velocityRange), "emissionLongitude": \(longitude),
                  "emissionLatitude": \(latitude), "emissionRange": \(emissionRange),
                  "xAcceleration": \(acceleration.0), "yAcceleration": \(acceleration.1),
                  "scale": \(scale), "scaleRange": \(scaleRange), "scaleSpeed": \(scaleSpeed),
                  "spin": \(spin), "spinRange": \(spinRange), "color": "#\(hex)",
                  "redRange": \(colorRange[0]), "greenRange": \(colorRange[1]), "blueRange": \(colorRange[2]) }
                """
            let folder = try TemporaryFolder()
            let file = try folder.write(
                Self.job(
                    "\"emitterPosition\": [200, 200], \"emitterShape\": \"\(shape)\", \"emitterMode\": \"\(mode)\", "
                        + "\"emitterSize\": [\(size.0), \(size.1)], \"cells\": [\(cell)]"), to: "job.json")
            let items = try #require(Trace.run(file, frames: "10").first).items()
            try #require(items.count == 10_000, "\(label): \(items.count) particles alive at 1 s")
            let time = 1.0
            var lifetimes: [Double] = []
            var speeds: [Double] = []
            var cosines: [Double] = []
            var across: [Double] = []
            var scales: [Double] = []
            var spins: [Double] = []
            var channels: [[Double]] = [[], [], []]
            var origins: [(x: Double, y: Double)] = []
            let axis = (cos(latitude) * cos(longitude), cos(latitude) * sin(longitude), sin(latitude))
            for item in items {
                let born = item.planNumber("born")
                let age = time - born
                let v = (item.plan["velocity"] as? [NSNumber] ?? []).map(\.doubleValue)
                let origin = (item.plan["origin"] as? [NSNumber] ?? []).map(\.doubleValue)
                try #require(v.count == 3 && origin.count == 2, "\(label): \(item.object)")
                // Exact: where the formula puts it.
                let x = origin[0] + v[0] * age + acceleration.0 * age * age / 2
                let y = origin[1] + v[1] * age + acceleration.1 * age * age / 2
                #expect(abs(item.x - x) < 1e-6 && abs(item.y - y) < 1e-6, "\(label): \(item.object)")
                lifetimes.append(item.planNumber("lifetime"))
                let speed = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).squareRoot()
                speeds.append(speed)
                cosines.append((v[0] * axis.0 + v[1] * axis.1 + v[2] * axis.2) / speed)
                across.append((-v[0] * sin(longitude) + v[1] * cos(longitude)) / speed)
                scales.append(item.scale - scaleSpeed * age)
                spins.append(item.number("angle") / age)
                for (channel, name) in ["red", "green", "blue"].enumerated() {
                    channels[channel].append(item.number(name))
                }
                origins.append((origin[0], origin[1]))
            }
            Self.expectUniform(lifetimes, lifetime, lifetimeRange, "\(label) lifetime")
            Self.expectUniform(speeds, velocity, velocityRange, "\(label) speed")
            Self.expectUniform(scales, scale, scaleRange, "\(label) scale")
            Self.expectUniform(spins, spin, spinRange, "\(label) spin")
            for channel in 0..<3 {
                Self.expectUniform(
                    channels[channel], Double(rgb[channel]) / 255, colorRange[channel], "\(label) channel \(channel)")
            }
            // Directions: the cosine to the axis is uniform on [cos(range/2), 1]; around the axis, symmetric.
            let low = cos(min(emissionRange / 2, Double.pi))
            Self.expectUniform(cosines, (1 + low) / 2, (1 - low) / 2, "\(label) direction (range \(emissionRange))")
            #expect(abs(Self.moments(across).mean) < 0.05, "\(label): directions lean to one side")
            Self.expectOrigins(origins, shape: shape, mode: mode, size: size, label: label)
        }
    }

    /// Birth points lie where the shape and mode say, spread evenly over it.
    static func expectOrigins(
        _ origins: [(x: Double, y: Double)], shape: String, mode: String, size: (Double, Double), label: String
    ) {
        let (w, h) = size
        let close = { (a: Double, b: Double) -> Bool in abs(a - b) < 1e-6 }
        // The share of origins that `test` holds for (the predicates outside #expect: its expansion of a
        // closure over a tuple type-checks slowly).
        func share(_ test: ((x: Double, y: Double)) -> Bool) -> Double {
            Double(origins.filter(test).count) / Double(origins.count)
        }
        switch (shape, mode) {
        case ("point", _), ("circle", "points"):
            let atCentre = share { close($0.x, 200) && close($0.y, 200) }
            #expect(atCentre == 1, "\(label): \(shape) \(mode)")
        case ("line", "points"):
            let atEnds = share { (close($0.x, 200 - w / 2) || close($0.x, 200 + w / 2)) && close($0.y, 200) }
            let left = share { $0.x < 200 }
            #expect(atEnds == 1, "\(label)")
            #expect(abs(left - 0.5) < 0.03, "\(label)")
        case ("line", _):
            let onLine = share { close($0.y, 200) }
            #expect(onLine == 1, "\(label)")
            expectUniform(origins.map(\.x), 200, w / 2, "\(label) line x")
        case ("rectangle", "points"):
            let atCorners = share { close(abs($0.x - 200), w / 2) && close(abs($0.y - 200), h / 2) }
            #expect(atCorners == 1, "\(label)")
        case ("rectangle", "outline"):
            let onOutline = share { (x: Double, y: Double) -> Bool in
                let onSide = close(abs(x - 200), w / 2) && abs(y - 200) <= h / 2 + 1e-6
                return onSide || (close(abs(y - 200), h / 2) && abs(x - 200) <= w / 2 + 1e-6)
            }
            #expect(onOutline == 1, "\(label) rectangle outline")
            // Even by length: the share on the left and right edges is h / (w + h).
            let sides = share { close(abs($0.x - 200), w / 2) }
            #expect(abs(sides - h / (w + h)) < 0.03, "\(label): \(sides) on the sides")
        case ("rectangle", _):
            expectUniform(origins.map(\.x), 200, w / 2, "\(label) rectangle x")
            expectUniform(origins.map(\.y), 200, h / 2, "\(label) rectangle y")
        case ("circle", "outline"):
            let onCircle = share { abs(hypot($0.x - 200, $0.y - 200) - w) < 1e-6 }
            #expect(onCircle == 1, "\(label): radius is the width")
        default:
            // Inside the disc, uniform by area: the squared distance over w² is uniform on [0, 1].
            let areas = origins.map { (x: Double, y: Double) -> Double in
                ((x - 200) * (x - 200) + (y - 200) * (y - 200)) / (w * w)
            }
            expectUniform(areas, 0.5, 0.5, "\(label) disc")
        }
    }

    @Test("one seeded particle: its painted box is where the formula says at every frame, in its colour")
    func pixels() throws {
        let folder = try TemporaryFolder()
        // One particle (born at 0; the next would be at 2 s), moving right at 100 pt/s and falling at 50 pt/s².
        let file = try folder.write(
            Self.job(
                """
                "emitterPosition": [100, 80], "cells": [ { "birthRate": 0.5, "duration": 1, "lifetime": 3,
                  "contents": "rectangle", "size": [20, 10], "color": "#FF2000", "velocity": 100,
                  "yAcceleration": 50, "scaleSpeed": 0.5 } ]
                """, duration: 2.5), to: "job.json")
        let out = folder.url.appendingPathComponent("out")
        let render = CLI.run(["render", file, "--out", out.path, "--progress", "none"])
        try #require(render.status == 0, "\(render.stderr)")
        for frame in [0, 7, 15, 24] {
            let t = Double(frame) / 10
            let image = try ImageSurface(
                contentsOfPNG: out.appendingPathComponent(String(format: "frame_%05d.png", frame)).path)
            let box = try #require(DebugOverlayTests.box(image) { pixel, _, _ in pixel.a > 127 }, "frame \(frame)")
            let (x, y, scale) = (100 + 100 * t, 80 + 25 * t * t, 1 + 0.5 * t)
            #expect(
                abs(Double(box.0 + box.2 + 1) / 2 - x) <= 0.5 && abs(Double(box.1 + box.3 + 1) / 2 - y) <= 0.5,
                "\(frame): \(box)")
            #expect(
                abs(Double(box.2 - box.0 + 1) - 20 * scale) <= 1 && abs(Double(box.3 - box.1 + 1) - 10 * scale) <= 1)
            let centre = image.pixel(x: Int(x), y: Int(y))
            #expect(centre == (255, 32, 0, 255), "frame \(frame): \(centre)")
        }
    }

    @Test("render modes: which of two overlapping particles is on top, or their colours added")
    func renderModes() throws {
        // Cell 0 (red) is born at 0 and lies nearer the viewer (it flies towards it); cell 1 (blue) is born at
        // 0.2 s, further back. Both stay on the canvas point (200, 200).
        let cells = """
            "emitterPosition": [200, 200], "cells": [
              { "birthRate": 0.5, "duration": 1, "lifetime": 5, "contents": "rectangle", "size": 40, "color": "#FF0000",
                "velocity": 10, "emissionLatitude": 1.5707963267948966 },
              { "birthRate": 0.5, "beginTime": 0.2, "duration": 1, "lifetime": 5, "contents": "rectangle", "size": 40,
                "color": "#0000FF" } ]
            """
        let folder = try TemporaryFolder()
        for (mode, expected) in [
            ("unordered", (0, 0, 255)), ("oldestFirst", (0, 0, 255)), ("oldestLast", (255, 0, 0)),
            ("backToFront", (255, 0, 0)), ("additive", (255, 0, 255)),
        ] {
            let file = try folder.write(
                Self.job(cells + ", \"renderMode\": \"\(mode)\"", duration: 1), to: "\(mode).json")
            let out = folder.url.appendingPathComponent(mode)
            let render = CLI.run(["render", file, "--frames", "5", "--out", out.path, "--progress", "none"])
            try #require(render.status == 0, "\(render.stderr)")
            let image = try ImageSurface(contentsOfPNG: out.appendingPathComponent("frame_00005.png").path)
            let pixel = image.pixel(x: 200, y: 200)
            #expect((Int(pixel.r), Int(pixel.g), Int(pixel.b)) == expected && pixel.a == 255, "\(mode): \(pixel)")
        }
    }

    @Test("an image's colours are multiplied by the particle's colour, its alpha by the particle's")
    func imageTint() throws {
        let folder = try TemporaryFolder()
        try InputFileTests.writeSquare(
            folder.url.appendingPathComponent("grey.png").path, size: 20, red: 200.0 / 255, green: 200.0 / 255, blue: 1)
        let file = try folder.write(
            Self.job(
                """
                "emitterPosition": [50, 50], "cells": [ { "birthRate": 0.5, "duration": 1, "lifetime": 3,
                  "image": "grey.png", "color": "#FF800080" } ]
                """, duration: 1), to: "job.json")
        let out = folder.url.appendingPathComponent("out")
        let render = CLI.run(["render", file, "--frames", "3", "--out", out.path, "--progress", "none"])
        try #require(render.status == 0, "\(render.stderr)")
        let image = try ImageSurface(contentsOfPNG: out.appendingPathComponent("frame_00003.png").path)
        let pixel = image.pixel(x: 50, y: 50)
        // 200 × 1, 200 × 128/255, 255 × 0, at alpha 128/255.
        #expect(abs(Int(pixel.r) - 200) <= 1 && abs(Int(pixel.g) - 100) <= 1 && pixel.b <= 1, "\(pixel)")
        #expect(abs(Int(pixel.a) - 128) <= 1, "\(pixel)")
        #expect(
            DebugOverlayTests.box(image) { pixel, _, _ in pixel.a > 64 }.map { $0.2 - $0.0 + 1 } == 20, "1 px = 1 pt")
    }

    @Test("bad cells are refused at their key, with a suggestion; a cell that emits nothing is warned about")
    func refusals() throws {
        let folder = try TemporaryFolder()
        for (params, message) in [
            ("\"cells\": [{\"birthrate\": 3}]", "cells[0].birthrate: unknown key (did you mean \"birthRate\"?)"),
            (
                "\"cells\": [{\"contents\": \"stars\"}]",
                "cells[0].contents: unknown value \"stars\" (did you mean \"star\"?)"
            ),
            ("\"cells\": [{\"emitterCells\": []}]", "cells that emit cells are not supported"),
            ("\"cells\": [{\"lifetime\": -1}]", "cells[0].lifetime"),
            (
                "\"cells\": [{\"contents\": \"star\", \"image\": \"a.png\"}]",
                "give contents (a shape) or image (a PNG), not both"
            ),
            ("\"cells\": [{\"birthRate\": 100000, \"lifetime\": 20}]", "at most 1000000"),
            ("\"cells\": {}", "expected a list of at most 64 cell objects"),
            ("\"emitterSize\": [1, 2, 3]", "expected [width, height]"),
            ("\"emitterShape\": \"sphere\"", "emitterShape"),
        ] {
            try folder.expectRefused(Self.job(params), saying: message, label: params)
        }
        let quiet = try folder.write(Self.job("\"cells\": [{\"birthRate\": 10}]"), to: "quiet.json")
        let validate = CLI.run(["validate", quiet])
        #expect(validate.status == 0, "\(validate.stderr)")
        #expect(validate.stderr.contains("emits nothing"), "\(validate.stderr)")
    }
}

extension String {
    /// The red, green and blue bytes of six hex digits.
    fileprivate func chunked() -> [Int] {
        stride(from: 0, to: 6, by: 2).map { offset in
            let start = index(startIndex, offsetBy: offset)
            return Int(self[start..<index(start, offsetBy: 2)], radix: 16) ?? 0
        }
    }
}
