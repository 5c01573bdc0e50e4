import Foundation

/// A Lottie file written for the tests, with known geometry (composition 100 × 100 at 10 fps, frames 0–9):
///
/// - layer "mover": a 20 × 20 square whose group moves linearly from (20, 50) at frame 0 to (80, 50) at
///   frame 10 (6 px a frame); its fill "paint" is red until frame 5, then blue (hold keyframes);
/// - layer "fader": a green 20 × 20 square at (50, 20) whose layer opacity falls linearly from 100 % at
///   frame 0 to 0 % at frame 10;
/// - layer "pair": two white 16 × 16 squares, groups "left" at (20, 85) and "right" at (80, 85), each
///   with a fill named "paint" (for keypath overrides).
enum LottieFixture {
    static let frameRate = 10
    static let frames = 10

    static var json: String { text(frames: frames) }

    /// The document as text; `frames` sets the out point.
    static func text(frames: Int) -> String {
        """
        {"v": "5.7.4", "nm": "fixture", "fr": \(frameRate), "ip": 0, "op": \(frames), "w": 100, "h": 100,
         "layers": [
          {"ty": 4, "nm": "mover", "ind": 1, "ip": 0, "op": \(frames), "st": 0, "ks": \(still),
           "shapes": [{"ty": "gr", "nm": "square", "it": [
             {"ty": "rc", "nm": "rect", "p": {"a": 0, "k": [0, 0]}, "s": {"a": 0, "k": [20, 20]}, "r": {"a": 0, "k": 0}},
             {"ty": "fl", "nm": "paint", "o": {"a": 0, "k": 100}, "c": {"a": 1, "k": [
               {"t": 0, "s": [1, 0, 0, 1], "h": 1}, {"t": 5, "s": [0, 0, 1, 1], "h": 1}, {"t": 10, "s": [0, 0, 1, 1]}]}},
             {"ty": "tr", "a": {"a": 0, "k": [0, 0]}, "s": {"a": 0, "k": [100, 100]}, "r": {"a": 0, "k": 0},
              "o": {"a": 0, "k": 100}, "p": {"a": 1, "k": [
               {"t": 0, "s": [20, 50], "e": [80, 50], "o": {"x": [0], "y": [0]}, "i": {"x": [1], "y": [1]}},
               {"t": 10, "s": [80, 50]}]}}]}]},
          {"ty": 4, "nm": "fader", "ind": 2, "ip": 0, "op": \(frames), "st": 0,
           "ks": {"a": {"a": 0, "k": [0, 0]}, "p": {"a": 0, "k": [0, 0]}, "s": {"a": 0, "k": [100, 100]},
                  "r": {"a": 0, "k": 0}, "o": {"a": 1, "k": [
                   {"t": 0, "s": [100], "e": [0], "o": {"x": [0], "y": [0]}, "i": {"x": [1], "y": [1]}},
                   {"t": 10, "s": [0]}]}},
           "shapes": [\(square("green", x: 50, y: 20, side: 20, color: "0, 1, 0, 1"))]},
          {"ty": 4, "nm": "pair", "ind": 3, "ip": 0, "op": \(frames), "st": 0, "ks": \(still),
           "shapes": [\(square("left", x: 20, y: 85, side: 16, color: "1, 1, 1, 1")),
                      \(square("right", x: 80, y: 85, side: 16, color: "1, 1, 1, 1"))]}
         ]}
        """
    }

    private static let still = """
        {"a": {"a": 0, "k": [0, 0]}, "p": {"a": 0, "k": [0, 0]}, "s": {"a": 0, "k": [100, 100]}, \
        "r": {"a": 0, "k": 0}, "o": {"a": 0, "k": 100}}
        """

    private static func square(_ name: String, x: Int, y: Int, side: Int, color: String) -> String {
        """
        {"ty": "gr", "nm": "\(name)", "it": [
          {"ty": "rc", "nm": "rect", "p": {"a": 0, "k": [0, 0]}, "s": {"a": 0, "k": [\(side), \(side)]}, "r": {"a": 0, "k": 0}},
          {"ty": "fl", "nm": "paint", "o": {"a": 0, "k": 100}, "c": {"a": 0, "k": [\(color)]}},
          {"ty": "tr", "a": {"a": 0, "k": [0, 0]}, "p": {"a": 0, "k": [\(x), \(y)]}, "s": {"a": 0, "k": [100, 100]},
           "r": {"a": 0, "k": 0}, "o": {"a": 0, "k": 100}}]}
        """
    }

    /// A job playing `lottie` (a file name in the job's folder) on a transparent 100 × 100 canvas.
    static func job(
        lottie: String = "anim.json", fps: Double = 10, duration: Double = 1, scale: Double = 1,
        params: [String: Any] = [:], frames: String? = nil
    ) throws -> String {
        var layerParams: [String: Any] = ["file": lottie]
        for (key, value) in params { layerParams[key] = value }
        var job: [String: Any] = [
            "version": 1, "name": "lottie-test", "fps": fps, "duration": duration,
            "canvas": ["width": 100, "height": 100, "scale": scale, "background": "#00000000"],
            "output": ["dir": "out"],
            "layers": [["effect": "lottie", "params": layerParams]],
        ]
        if let frames { job["frames"] = frames }
        let data = try JSONSerialization.data(withJSONObject: job, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}
