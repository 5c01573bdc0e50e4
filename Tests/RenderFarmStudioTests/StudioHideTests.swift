import EffectKit
import Foundation
import Testing

/// Hide and solo (article Studio, "Hide and solo"): a frame asked for with `?hide=I,J` is the frame of the job
/// file without those layers, as another studio on that file draws it, and the file is not changed.
@Suite("Studio hide and solo: the preview without some layers", .serialized)
struct StudioHideTests {
    /// `jobs/gift-basket.json`: eleven effect layers, four of them in a group, where layer 7 is masked by layer 8
    /// (`pill`).
    static let job = "gift-basket.json"
    static let masked = 7
    static let mask = 8

    /// The paths of the effect layers `GET /api/job` lists, in its order.
    static func paths(_ studio: StudioFixture) throws -> [String] {
        let layers = try #require(try studio.client.send("GET", "/api/job").json?["layers"] as? [[String: Any]])
        return layers.compactMap { $0["path"] as? String }
    }

    /// The job text without the layer entries at `removed` (paths such as `layers[6].group[2]`), and without the
    /// groups that leaves empty: made here with Foundation's JSON, not the studio's.
    static func text(_ text: String, without removed: Set<String>) throws -> String {
        var root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        func prune(_ list: [Any], _ path: String) -> [Any] {
            list.enumerated().compactMap { index, entry -> Any? in
                let own = "\(path)[\(index)]"
                guard !removed.contains(own) else { return nil }
                guard var object = entry as? [String: Any], let group = object["group"] as? [Any] else { return entry }
                let kept = prune(group, own + ".group")
                if kept.isEmpty { return nil }
                object["group"] = kept
                return object
            }
        }
        root["layers"] = prune(try #require(root["layers"] as? [Any]), "layers")
        return String(decoding: try JSONSerialization.data(withJSONObject: root), as: UTF8.self)
    }

    /// Two studios on copies of the job (one to hide layers in, one to draw the file without them), the job's
    /// text and its layers' paths.
    static func studios() throws -> (StudioFixture, StudioFixture, String, [String]) {
        let studio = try StudioFixture(job: job)
        return (studio, try StudioFixture(job: job), studio.jobText, try paths(studio))
    }

    /// Expects frame `frame` at half scale with `hide` from `studio` to be the frame `reference` (a studio on
    /// another copy of the job) draws of its file without the layers `removed` (places in `paths`).
    static func expectHiding(
        _ hide: [Int], removed: [Int], frame: Int, _ studio: StudioFixture, _ reference: StudioFixture,
        _ paths: [String],
        original: String
    ) throws {
        let query = hide.map(String.init).joined(separator: ",")
        let shown = try studio.client.send("GET", "/api/frames/\(frame).png?scale=0.5&hide=\(query)")
        #expect(shown.status == 200, "hide=\(query): \(shown.text.prefix(300))")
        let text = try Self.text(original, without: Set(removed.map { paths[$0] }))
        let put = try reference.client.send("PUT", "/api/job", body: Array(text.utf8))
        #expect(put.status == 200, "\(put.text.prefix(300))")
        let expected = try reference.client.send("GET", "/api/frames/\(frame).png?scale=0.5")
        #expect(expected.status == 200, "\(expected.text.prefix(300))")
        #expect(Data(shown.body) == Data(expected.body), "frame \(frame) with hide=\(query)")
    }

    @Test("random hide sets: each frame is the frame of the file without those layers; the file is unchanged")
    func hidingIsRemoving() throws {
        let (studio, reference, original, paths) = try Self.studios()
        #expect(paths.count == 11 && paths[Self.mask] == "layers[6].group[2]", "\(paths)")
        var generator = SeededRandom(seed: 48)
        // The masked layer and its mask stay shown here; the mask rule has its own test below.
        let free = paths.indices.filter { $0 != Self.masked && $0 != Self.mask }
        for _ in 0..<10 {
            let hidden = free.filter { _ in Double.random(in: 0..<1, using: &generator) < 0.4 }
            guard !hidden.isEmpty else { continue }
            let frame = Int.random(in: 0..<90, using: &generator)
            try Self.expectHiding(hidden, removed: hidden, frame: frame, studio, reference, paths, original: original)
        }
        #expect(studio.jobText == original)
        // The order and repeats of the list do not matter.
        let once = try studio.client.send("GET", "/api/frames/40.png?scale=0.5&hide=2,10").body
        #expect(Data(try studio.client.send("GET", "/api/frames/40.png?scale=0.5&hide=10,2,10").body) == Data(once))
    }

    @Test("a mask stays while the layer it masks is shown and goes with it; a group goes with its last layer")
    func masksAndGroups() throws {
        let (studio, reference, original, paths) = try Self.studios()
        let plain = try studio.client.send("GET", "/api/frames/40.png?scale=0.5").body
        // Hiding only the mask changes nothing: it is not drawn, and the layer it masks still needs it.
        #expect(
            Data(try studio.client.send("GET", "/api/frames/40.png?scale=0.5&hide=\(Self.mask)").body) == Data(plain))
        let cases: [(hide: [Int], removed: [Int])] = [
            ([Self.masked], [Self.masked, Self.mask]),
            ([6, 7, 9], [6, 7, 8, 9]),
        ]
        for (hide, removed) in cases {
            try Self.expectHiding(hide, removed: removed, frame: 40, studio, reference, paths, original: original)
        }
        // With the group's every layer gone, the group goes too: the reference file has no group entry left.
        let noGroup = try Self.text(original, without: Set([6, 7, 8, 9].map { paths[$0] }))
        #expect(!noGroup.contains("\"group\""))
    }

    @Test("hide= that names no layer is refused with a JSON error; hiding every layer is 422, nothing drawn")
    func refused() throws {
        let studio = try StudioFixture(job: Self.job)
        let count = try Self.paths(studio).count
        for (query, status, says) in [
            ("x", 400, "is not a layer number"), ("-1", 400, "is not a layer number"), ("1,,2", 400, "not a layer"),
            ("\(count)", 400, "the job has layers 0…\(count - 1)"),
            ((0..<count).map(String.init).joined(separator: ","), 422, "every layer is hidden"),
            (Array(repeating: "1", count: 65).joined(separator: ","), 400, "more than 64 layers"),
        ] {
            let response = try studio.client.send("GET", "/api/frames/0.png?hide=\(query)")
            #expect(response.status == status, "hide=\(query.prefix(40)): \(response.text)")
            #expect(
                (response.json?["error"] as? String)?.contains(says) == true,
                "hide=\(query.prefix(40)): \(response.text)")
        }
        let audio = try studio.client.send("GET", "/api/audio.wav?hide=x")
        #expect(audio.status == 400, "\(audio.text)")
    }

    @Test("a hidden layer's sound is left out of the mix: the mix of the file without it")
    func hiddenSound() throws {
        // The footage layer plays the clip's sound; without it the job has none (404, as for the reference).
        let studio = try StudioFixture(job: "hearts-over-footage.json", assets: ["footage-stream.mp4"])
        let reference = try StudioFixture(job: "hearts-over-footage.json", assets: ["footage-stream.mp4"])
        let paths = try Self.paths(studio)
        let full = try studio.client.send("GET", "/api/audio.wav")
        #expect(full.status == 200, "\(full.text.prefix(300))")
        // Each layer in turn: a layer that plays a sound changes the mix when hidden; every mix is the reference's.
        var changed = 0
        for index in paths.indices {
            let hidden = try studio.client.send("GET", "/api/audio.wav?hide=\(index)")
            let text = try Self.text(studio.jobText, without: [paths[index]])
            #expect(try reference.client.send("PUT", "/api/job", body: Array(text.utf8)).status == 200)
            let expected = try reference.client.send("GET", "/api/audio.wav")
            #expect(hidden.status == expected.status, "hide=\(index)")
            #expect(Data(hidden.body) == Data(expected.body), "hide=\(index)")
            if hidden.body != full.body { changed += 1 }
        }
        #expect(changed == 1, "only the footage layer plays a sound")
    }
}

/// EffectKit's SplitMix64 stream: the same seed gives the same cases on every machine.
extension SeededRandom: RandomNumberGenerator {}
