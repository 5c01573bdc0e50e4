import Testing

@testable import Lottie

@Suite("Lottie clock")
struct LottieClockTests {
    @Test("fractions are exact for decimal rates: 29.97 = 2997/100, 0.7 = 7/10, 1/3 typed with 13 digits")
    func fractions() throws {
        #expect(Rational(approximating: 29.97) == Rational(2997, 100))
        #expect(Rational(approximating: 0.7) == Rational(7, 10))
        #expect(Rational(approximating: 0.3333333333333) == Rational(1, 3))
        #expect(Rational(approximating: 30000.0 / 1001.0) == Rational(30000, 1001))
        #expect(Rational(approximating: -2.5) == Rational(-5, 2))
        #expect(Rational(-7, 2).floor == -4)
        #expect(Rational(approximating: .nan) == nil)
    }

    @Test("job 60 fps, Lottie 30 fps: each Lottie frame shows twice, loop after loop for 1,000 loops")
    func evenRates() throws {
        let clock = try LottieClock(
            jobFPS: 60, layerStart: 0, start: 0, speed: 1, lottieFPS: 30, frameCount: 30, loops: nil, hold: false)
        for index in 0..<(1000 * 60 + 60) {
            #expect(clock.sample(at: index) == .frame(index / 2 % 30, loop: index / 60))
        }
    }

    @Test("29.97 fps at speed 0.7 in a 60 fps job: frame n shows ⌊n × 2997 × 7 / 60000⌋ mod 45 over 1,000 loops")
    func oddRates() throws {
        let clock = try LottieClock(
            jobFPS: 60, layerStart: 0, start: 0, speed: 0.7, lottieFPS: 29.97, frameCount: 45, loops: nil,
            hold: false)
        // One loop is 45 Lottie frames ≈ 128.7 job frames; 1,000 loops ≈ 128,700 job frames.
        var naive = 0.0  // what a running sum of Double steps would give
        var drifted = false
        for index in 0..<130_000 {
            let played = index * 20979 / 60000
            #expect(clock.sample(at: index) == .frame(played % 45, loop: played / 45))
            if Int(naive.rounded(.down)) != played { drifted = true }
            naive += 29.97 * 0.7 / 60
        }
        #expect(drifted, "the naive sum drifts (which is why the clock does not accumulate)")
    }

    @Test("layer start, start offset, loop count and hold")
    func startAndLoops() throws {
        let clock = try LottieClock(
            jobFPS: 30, layerStart: 1, start: 0.5, speed: 2, lottieFPS: 24, frameCount: 12, loops: 3, hold: false)
        // Starts at job frame (1 + 0.5) × 30 = 45; 24 × 2 / 30 = 1.6 Lottie frames per job frame.
        #expect(clock.sample(at: 44) == .hidden)
        #expect(clock.sample(at: 45) == .frame(0, loop: 0))
        #expect(clock.sample(at: 46) == .frame(1, loop: 0))
        #expect(clock.sample(at: 50) == .frame(8, loop: 0))
        // 3 loops = 36 Lottie frames = 22.5 job frames: frame 67 is Lottie 35.2, 68 is past the end.
        #expect(clock.sample(at: 67) == .frame(11, loop: 2))
        #expect(clock.sample(at: 68) == .hidden)
        let holding = try LottieClock(
            jobFPS: 30, layerStart: 1, start: 0.5, speed: 2, lottieFPS: 24, frameCount: 12, loops: 3, hold: true)
        #expect(holding.sample(at: 68) == .frame(11, loop: 2))
        #expect(holding.sample(at: 1_000_000) == .frame(11, loop: 2))
    }

    @Test("frame indices far beyond any job stay exact (no overflow)")
    func largeIndices() throws {
        let clock = try LottieClock(
            jobFPS: 59.94, layerStart: 0.001, start: 12.5, speed: 1.25, lottieFPS: 29.97, frameCount: 7,
            loops: nil, hold: false)
        let index = Int(UInt32.max)
        // (n − 12.501 × 59.94) × 29.97 × 1.25 / 59.94 = (n − 749.30994) × 0.625
        let exact = (Double(index) - 749.30994) * 0.625
        guard case .frame(let frame, let loop) = clock.sample(at: index) else {
            Issue.record("hidden at \(index)")
            return
        }
        #expect(loop * 7 + frame == Int(exact.rounded(.down)))
    }
}
