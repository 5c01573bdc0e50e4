import EffectKit

/// Everything random about one heart, drawn from the heart's own seed whenever a frame shows it, in the
/// order the seed's code draws it (colour in `init`, then direction, end point, control offsets).
struct HeartPlan: Sendable {
    let id: Int
    /// Layer time at which the heart is added.
    let spawn: Double
    /// View width and height in points (the layer's `size`, or the heart's event's).
    let size: Double
    let fill: Color
    /// The keyframe animation's path, sampled per `pathSampling`.
    let travel: KeyframePath<CubicBezier>
    /// `liveAnimationDuration + end.y / H`: the keyframe animation's duration.
    let travelDuration: Double

    /// Draws the plan of heart `id` as `addAnimationView` does, for a `size`-point view whose
    /// bottom centre sits at `emitter` on a canvas `canvasHeight` points tall. A `color` from the
    /// heart's event replaces the drawn colour; the draw still happens, so the path is the same.
    init(
        id: Int, spawn: Double, size: Double, emitter: Point, canvasHeight: Double, lifetime: Double,
        palette: [Color]?, color: Color? = nil, sampling: PathSampling, random: inout SeededRandom
    ) {
        self.id = id
        self.spawn = spawn
        self.size = size
        let drawn: Color
        if let palette, !palette.isEmpty {
            drawn = palette[Int(random.uniform(UInt32(palette.count)))]
        } else {
            // arc4random_uniform(255) / 255.0 per channel, as in the seed.
            let red = Double(random.uniform(255)) / 255
            let green = Double(random.uniform(255)) / 255
            let blue = Double(random.uniform(255)) / 255
            drawn = Color(red: red, green: green, blue: blue)
        }
        fill = color ?? drawn
        let width = size
        let height = canvasHeight
        let direction = 1 - 2 * Double(random.uniform(2))
        let endX = emitter.x + direction * random.arc4randomUniform(2 * width)
        let endY = height / 6 + random.arc4randomUniform(height / 4)
        let x = (width / 2 + random.arc4randomUniform(2 * width)) * direction
        let y = max(endY, max(random.arc4randomUniform(8 * width), width))
        let path = CubicBezier(
            emitter, Point(emitter.x + x, height - y), Point(emitter.x - 2 * x, y), Point(endX, endY))
        travel = KeyframePath(curve: path, sampling: sampling)
        travelDuration = lifetime + endY / height
    }
}
