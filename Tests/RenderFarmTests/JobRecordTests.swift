import StrictJSON
import Testing

@testable import RenderFarm
@testable import RenderFarmOutput

@Suite("Job record")
struct JobRecordTests {
    static let text = """
        {"format": "renderfarm.job", "version": 1, "name": "live-hearts", "source": "/jobs/live-hearts.json",
         "fingerprint": "abc", "seed": "18446744073709551615",
         "canvas": {"width": 375, "height": 667, "scale": 2, "background": "#00000000"},
         "fps": 60, "duration": 8, "frames": "0-9,20-29:2",
         "output": {"prefix": "frame_", "padding": 5},
         "plugins": [{"id": "floating-heart", "identifier": "org.renderfarm.floating-heart", "version": "1.0.0"}],
         "canonical": {"seed": 1}}
        """

    @Test("reads what it writes, and names frames and fingerprints like the renderer")
    func roundTrip() throws {
        let record = try JobRecord(json: JSONParser.parse(Self.text), path: "renderfarm.job.json")
        #expect(record.seed == UInt64.max, "a 64-bit seed survives (it is stored as a string)")
        #expect(record.frames.frames == Array(0...9) + [20, 22, 24, 26, 28])
        #expect(record.pixelWidth == 750)
        #expect(record.fileName(ofFrame: 42) == "frame_00042.png")
        #expect(FrameFingerprints(job: record.fingerprint)[3] == FrameFingerprints.fingerprint(job: "abc", frame: 3))
        let again = try JobRecord(json: JSONParser.parse(record.json.serialized()), path: "renderfarm.job.json")
        #expect(again == record)
    }

    @Test("a record from a newer renderfarm or with missing fields is refused with its path")
    func refused() throws {
        let newer = Self.text.replacingOccurrences(of: "\"version\": 1", with: "\"version\": 2")
        #expect(throws: JobRecordError.self) { try JobRecord(json: JSONParser.parse(newer), path: "x") }
        let partial = try JSONParser.parse("{\"format\": \"renderfarm.job\", \"version\": 1}")
        do {
            _ = try JobRecord(json: partial, path: "/o/r.json")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.hasPrefix("/o/r.json "))
        }
    }
}
