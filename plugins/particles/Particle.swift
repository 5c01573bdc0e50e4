import EffectKit
import Foundation

/// One particle as it is born: everything its cell left to chance, drawn from its own seed in a fixed
/// order (EffectKit article ParticlesEffect, "Each particle"). Nothing is simulated: its state at any age
/// is a formula of these values, so any frame is drawn alone, in any order, on any thread.
struct Particle: Sendable {
    var cell: Int
    var index: Int
    var born: Double
    var lifetime: Double
    var origin: Point
    /// The start velocity in points per second; `z` points out of the canvas, towards the viewer.
    var velocity: (x: Double, y: Double, z: Double)
    var scale: Double
    var spin: Double
    /// Red, green, blue and alpha at birth, each in 0…1.
    var color: SIMD4<Double>

    /// Particle `index` of `cell` (number `cellIndex` of its layer), born at its birth time.
    init(_ cell: ParticleCell, cellIndex: Int, index: Int, emitter: ParticleEmitter, context: EffectContext) {
        var random = SeededRandom(seed: context.itemSeed(index, inGroup: cellIndex))
        // Each value takes its draws whether or not its range is 0, so that a range changes only its value.
        func spread(_ base: Double, _ range: Double) -> Double { base + range * (2 * random.unit() - 1) }
        self.cell = cellIndex
        self.index = index
        born = cell.birthTime(index)
        lifetime = spread(cell.lifetime, cell.lifetimeRange)
        origin = emitter.birthPoint(random.unit(), random.unit())
        let direction = Self.direction(cell, random.unit(), random.unit())
        let speed = spread(cell.velocity, cell.velocityRange)
        velocity = (direction.x * speed, direction.y * speed, direction.z * speed)
        scale = spread(cell.scale, cell.scaleRange)
        spin = spread(cell.spin, cell.spinRange)
        let drawn = SIMD4(random.unit(), random.unit(), random.unit(), random.unit())
        color = (cell.color + cell.colorRange * (2 * drawn - 1)).clamped(lowerBound: .zero, upperBound: .one)
    }

    /// A unit direction uniform over the cap of the emission cone: `u` picks how far from the cone's axis
    /// (uniform in the cosine, so uniform over the cap's area), `v` which way around it.
    static func direction(_ cell: ParticleCell, _ u: Double, _ v: Double) -> (x: Double, y: Double, z: Double) {
        let (lon, lat) = (cell.longitude, cell.latitude)
        let axis = (x: cos(lat) * cos(lon), y: cos(lat) * sin(lon), z: sin(lat))
        // Two unit vectors across the axis: one in the canvas plane, one towards the viewer.
        let across = (x: -sin(lon), y: cos(lon), z: 0.0)
        let up = (x: -sin(lat) * cos(lon), y: -sin(lat) * sin(lon), z: cos(lat))
        let half = min(cell.emissionRange / 2, Double.pi)
        let cosine = 1 - u * (1 - cos(half))
        let sine = (1 - cosine * cosine).squareRoot()
        let (c, s) = (cos(2 * Double.pi * v), sin(2 * Double.pi * v))
        return (
            cosine * axis.x + sine * (c * across.x + s * up.x),
            cosine * axis.y + sine * (c * across.y + s * up.y),
            cosine * axis.z + sine * (c * across.z + s * up.z)
        )
    }

    /// The particle `age` seconds after its birth (at most its lifetime).
    struct State {
        var position: Point
        var z: Double
        var velocity: (x: Double, y: Double, z: Double)
        var scale: Double
        var angle: Double
        var color: SIMD4<Double>
    }

    func state(at age: Double, of cell: ParticleCell) -> State {
        let a = cell.acceleration
        return State(
            position: Point(
                origin.x + velocity.x * age + a.x * age * age / 2, origin.y + velocity.y * age + a.y * age * age / 2),
            z: velocity.z * age + a.z * age * age / 2,
            velocity: (velocity.x + a.x * age, velocity.y + a.y * age, velocity.z + a.z * age),
            scale: scale + cell.scaleSpeed * age, angle: spin * age,
            color: (color + cell.colorSpeed * age).clamped(lowerBound: .zero, upperBound: .one))
    }
}
