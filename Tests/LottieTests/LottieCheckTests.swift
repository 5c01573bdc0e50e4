import StrictJSON
import Testing

@testable import Lottie

@Suite("Lottie check")
struct LottieCheckTests {
    static let square = """
        {"v": "5.7.4", "fr": 30, "ip": 0, "op": 60, "w": 200, "h": 100, "layers": [
          {"ty": 4, "nm": "a", "ind": 1, "ks": {"p": {"a": 0, "k": [0, 0]}}, "shapes": [
            {"ty": "gr", "nm": "g", "it": [
              {"ty": "sh", "ks": {"a": 0, "k": {"i": [[0, 0], [0, 0]], "o": [[0, 0], [0, 0]], "v": [[0, 0], [9, 9]], "c": false}}},
              {"ty": "fl", "c": {"a": 0, "k": [1, 0, 0, 1]}, "o": {"a": 0, "k": 100}}]}]}]}
        """

    func problems(_ text: String) throws -> [String] {
        switch LottieCheck.check(try JSONParser.parse(text)) {
        case .success: []
        case .failure(let refusal): refusal.problems.map(\.description)
        }
    }

    @Test("a plain shape animation passes, with its size, rate and frame count")
    func accepts() throws {
        guard case .success(let facts) = LottieCheck.check(try JSONParser.parse(Self.square)) else {
            Issue.record("refused: \(try problems(Self.square))")
            return
        }
        #expect(facts == LottieFacts(width: 200, height: 100, frameRate: 30, frameCount: 60))
    }

    @Test(
        "refusals name the place",
        arguments: [
            (#""w": 200"#, #""w": 200.5"#, "w: expected an integer"),
            (#""op": 60"#, #""op": 0"#, "op: the animation must last"),
            (#""ind": 1,"#, #""ind": 1, "parent": 1,"#, "layers: layer 1's parents form a cycle"),
            (#""v": [[0, 0], [9, 9]]"#, #""v": [[0, 0]]"#, "layers[0].shapes[0].it[0].ks.k: i, o and v"),
            (#""k": [0, 0]}"#, #""k": [0, 0], "x": "time * 10"}"#, "layers[0].ks.p.x: expressions are not supported"),
            (#""ty": 4"#, #""ty": 5"#, "layers[0].ty: text layers are not supported"),
            (#""ty": "fl""#, #""ty": "zz""#, #"layers[0].shapes[0].it[1].ty: shape type "zz""#),
            (
                #""ty": "fl", "c""#,
                #""ty": "st", "d": [{"n": "d", "v": {"a": 0, "k": -5}}, {"n": "g", "v": {"a": 0, "k": 5}}], "c""#,
                "layers[0].shapes[0].it[1].d[0].v: dash and gap lengths must be fixed numbers ≥ 0"
            ),
            (#""ip": 0"#, #""ip": -3"#, "ip: -3.0 is negative"),
        ])
    func refuses(original: String, replacement: String, expected: String) throws {
        let text = Self.square.replacingOccurrences(of: original, with: replacement)
        let found = try problems(text)
        #expect(found.contains { $0.hasPrefix(expected) }, "\(found)")
    }
}
