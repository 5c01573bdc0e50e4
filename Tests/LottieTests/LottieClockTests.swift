import Testing

@testable import Lottie

@Suite("Lottie clock")
struct LottieClockTests {
    @Test("placeholder")
    func placeholder() throws {
        let clock = try LottieClock(
            jobFPS: 60, layerStart: 0, start: 0, speed: 1, lottieFPS: 30, frameCount: 30, loops: nil, hold: false)
        #expect(clock.sample(at: 3) == .frame(1, loop: 0))
    }
}
