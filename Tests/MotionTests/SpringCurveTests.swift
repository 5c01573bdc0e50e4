import Foundation
import Testing

@testable import Motion

/// One row of the test-vector table of Motion article Springs: x(t) for v = 0.8 (the blog) and v = 0.
private struct SpringVector: Sendable, CustomTestStringConvertible {
    let t: Double
    let blog: Double
    let still: Double
    var testDescription: String { "x(\(t))" }
}

private let springVectors = [
    SpringVector(t: 0.05, blog: 0.3866, still: 0.3736),
    SpringVector(t: 0.10, blog: 0.8609, still: 0.8557),
    SpringVector(t: 0.15, blog: 1.0726, still: 1.0721),
    SpringVector(t: 0.20, blog: 1.0859, still: 1.0856),
    SpringVector(t: 0.25, blog: 1.0376, still: 1.0369),
    SpringVector(t: 0.30, blog: 1.0019, still: 1.0014),
    SpringVector(t: 0.35, blog: 0.9911, still: 0.9911),
    SpringVector(t: 0.40, blog: 0.9936, still: 0.9938),
    SpringVector(t: 0.45, blog: 0.9981, still: 0.9983),
]

private let blogSpring = SpringCurve(duration: 0.5, damping: 0.6, velocity: 0.8)
private let stillSpring = SpringCurve(duration: 0.5, damping: 0.6, velocity: 0)

/// The maximum of x on [0.1, 0.25] by golden-section search (x is unimodal there).
private func peak(of spring: SpringCurve) -> (t: Double, value: Double) {
    let ratio = (5.0.squareRoot() - 1) / 2
    var low = 0.1
    var high = 0.25
    for _ in 0..<100 {
        let a = high - ratio * (high - low)
        let b = low + ratio * (high - low)
        if spring.value(at: a) < spring.value(at: b) { low = a } else { high = b }
    }
    let t = (low + high) / 2
    return (t, spring.value(at: t))
}

@Suite("SpringCurve (Springs)")
struct SpringCurveTests {
    @Test("v = 0.8: ω0 = 21.857103, k = 477.7330, c = 26.2285")
    func blogParameters() {
        #expect(abs(blogSpring.omega0 - 21.857103) < 5e-7)
        #expect(abs(blogSpring.stiffness - 477.7330) < 5e-5)
        #expect(abs(blogSpring.dampingCoefficient - 26.2285) < 5e-5)
        #expect(blogSpring.dampingRatio == 0.6)
        #expect(blogSpring.initialVelocity == 0.8)
        #expect(blogSpring.duration == 0.5)
    }

    @Test("v = 0: ω0 = 22.066911, k = 486.9485, c = 26.4803")
    func stillParameters() {
        #expect(abs(stillSpring.omega0 - 22.066911) < 5e-7)
        #expect(abs(stillSpring.stiffness - 486.9485) < 5e-5)
        #expect(abs(stillSpring.dampingCoefficient - 26.4803) < 5e-5)
    }

    @Test("x(t) matches the Springs test vectors to 1e-4", arguments: springVectors)
    fileprivate func table(_ vector: SpringVector) {
        #expect(abs(blogSpring.value(at: vector.t) - vector.blog) < 1e-4)
        #expect(abs(stillSpring.value(at: vector.t) - vector.still) < 1e-4)
    }

    @Test("peak: 1.09485 at t = 0.1780 s (v = 0.8), 1.09478 at 0.1780 s (v = 0)")
    func peaks() {
        let blog = peak(of: blogSpring)
        #expect(abs(blog.value - 1.09485) < 5e-6)
        #expect(abs(blog.t - 0.1780) < 5e-5)
        let still = peak(of: stillSpring)
        #expect(abs(still.value - 1.09478) < 5e-6)
        #expect(abs(still.t - 0.1780) < 5e-5)
    }

    @Test("x is 1.000472 just before 0.5 s, then snaps to exactly 1")
    func snap() {
        #expect(abs(blogSpring.value(at: 0.5.nextDown) - 1.000472) < 1e-6)
        #expect(abs(stillSpring.value(at: 0.5.nextDown) - 1.000539) < 1e-6)
        #expect(blogSpring.value(at: 0.5) == 1)
        #expect(blogSpring.value(at: 3) == 1)
    }

    @Test("x starts at 0 with the initial velocity v0")
    func start() {
        #expect(blogSpring.value(at: 0) == 0)
        #expect(blogSpring.value(at: -1) == 0)
        let h = 1e-7
        #expect(abs(blogSpring.value(at: h) / h - 0.8) < 1e-3)
        #expect(abs(stillSpring.value(at: h) / h) < 1e-3)
    }

    @Test("the oscillation envelope is 1e-3 at t = duration (Framer converter)")
    func envelope() {
        let zeta = blogSpring.dampingRatio
        let omega = blogSpring.omega0
        let omegaD = omega * (1 - zeta * zeta).squareRoot()
        let sineAmplitude = (zeta * omega - blogSpring.initialVelocity) / omegaD
        #expect(abs(sineAmplitude * exp(-zeta * omega * blogSpring.duration) - 1e-3) < 1e-12)
    }

    @Test("Framer README check: d = 3, ζ = 0.25, v = 0 → tension 54.833634, friction 3.702487")
    func framerReadme() {
        let spring = SpringCurve(duration: 3, damping: 0.25, velocity: 0)
        #expect(abs(spring.stiffness - 54.833634) < 5e-7)
        #expect(abs(spring.dampingCoefficient - 3.702487) < 5e-7)
    }

    @Test("uiKitDefault is the blog's bloom: 0.5 s, ζ 0.6, v 0.8")
    func uiKitDefault() {
        #expect(SpringCurve.uiKitDefault.duration == 0.5)
        #expect(SpringCurve.uiKitDefault.dampingRatio == 0.6)
        #expect(SpringCurve.uiKitDefault.initialVelocity == 0.8)
        #expect(SpringCurve.uiKitDefault.omega0 == blogSpring.omega0)
    }

    @Test("clamping: ζ > 1 is critical, durations are kept within 0.01…10 s")
    func clamping() {
        let critical = SpringCurve(duration: 0.5, damping: 2, velocity: 0)
        #expect(critical.dampingRatio == 1)
        #expect(critical.omega0.isFinite && critical.omega0 > 0)
        // Critically damped: the envelope e^(−ωd)·((ω − v)d + 1) reaches 1e-3 at t = d.
        let w = critical.omega0
        #expect(abs(exp(-w * 0.5) * (w * 0.5 + 1) - 1e-3) < 1e-9)
        #expect(abs(1 - critical.value(at: 0.5.nextDown) - 1e-3) < 1e-6)
        #expect(SpringCurve(duration: 0, damping: 0.6, velocity: 0).duration == 0.01)
        #expect(SpringCurve(duration: 60, damping: 0.6, velocity: 0).duration == 10)
        #expect(SpringCurve(duration: 0.5, damping: 0, velocity: 0).dampingRatio > 0)
    }

    @Test("the overdamped closed form satisfies x(0) = 0 and x'(0) = v0")
    func overdampedClosedForm() {
        let h = 1e-7
        let x0 = SpringCurve.closedForm(t: 0, omega0: 10, dampingRatio: 2, velocity: 3)
        let xh = SpringCurve.closedForm(t: h, omega0: 10, dampingRatio: 2, velocity: 3)
        #expect(abs(x0) < 1e-12)
        #expect(abs(xh / h - 3) < 1e-4)
        #expect(abs(SpringCurve.closedForm(t: 10, omega0: 10, dampingRatio: 2, velocity: 3) - 1) < 1e-9)
    }
}
