import EffectKit
import Foundation
import RenderFarmJobs
import StrictJSON
import Testing

@testable import RenderFarmStudio

/// The studio on a job with `variants.rows`: the CSV is part of the job, so an edit of it by another
/// program is picked up as an edit of the job file is (issue 48, finding 4).
@Suite("Studio: the variants CSV is watched", .serialized)
struct StudioDataFileTests {
    /// One edit another program makes to `streamers.csv`.
    enum Edit: CaseIterable {
        case cell, addRow, removeRow, brokenRecord, sameBytes, replaceByRename
    }

    @Test(
        "random edits of the rows file: after each, GET /api/job gives the variants a fresh load of the files gives",
        arguments: [UInt64(48), 4_804])
    func randomEdits(seed: UInt64) throws {
        let studio = try StudioFixture(job: "streamer-badges.json", assets: ["streamers.csv"])
        let csv = studio.root.appendingPathComponent("assets/streamers.csv")
        var random = SeededRandom(seed: seed)
        var rows = try String(contentsOf: csv, encoding: .utf8).split(separator: "\n").map(String.init)
        for step in 0..<8 {
            let edit = Edit.allCases[Int(random.uniform(UInt32(Edit.allCases.count)))]
            let versionBefore = try version(studio)
            switch edit {
            case .cell:
                let row = 1 + Int(random.uniform(UInt32(rows.count - 1)))
                var fields = rows[row].split(separator: ",").map(String.init)
                fields[1] = String(format: "#%06X", random.uniform(0xFF_FFFF))
                fields[3] = String(1 + random.uniform(9))
                rows[row] = fields.joined(separator: ",")
            case .addRow:
                rows.append("guest\(random.uniform(1000)),#123456,#654321,\(1 + random.uniform(9))")
            case .removeRow where rows.count > 2:
                rows.remove(at: 1 + Int(random.uniform(UInt32(rows.count - 1))))
            case .brokenRecord:
                rows.append("too,many,fields,here,5")
            case .removeRow, .sameBytes, .replaceByRename: break
            }
            let text = rows.joined(separator: "\n") + "\n"
            if edit == .replaceByRename {
                try text.write(to: csv, atomically: true, encoding: .utf8)
            } else {
                // Rewritten in place, as an editor without atomic saves does.
                let handle = try FileHandle(forWritingTo: csv)
                try handle.truncate(atOffset: 0)
                try handle.write(contentsOf: Data(text.utf8))
                try handle.close()
            }
            if edit == .brokenRecord { rows.removeLast() }
            let expected = Self.variants(loading: studio.jobFile.path)
            let caught = try StudioFixture.eventually(within: 10) { try Self.variants(of: studio) == expected }
            #expect(caught, "seed \(seed), step \(step) (\(edit)): the studio's variants are not the file's")
            if edit == .sameBytes {
                // Nothing changed: the page's version stays, so its next save is not refused as stale.
                usleep(400_000)
                #expect(try version(studio) == versionBefore, "seed \(seed), step \(step): same bytes made a version")
            }
        }
    }

    @Test("a colour edited in the CSV changes that variant's frame, and putting it back gives the first frame again")
    func frameFollowsTheRow() throws {
        let studio = try StudioFixture(job: "streamer-badges.json", assets: ["streamers.csv"])
        let csv = studio.root.appendingPathComponent("assets/streamers.csv")
        let original = try String(contentsOf: csv, encoding: .utf8)
        let frame = "/api/frames/40.png?variant=0&scale=0.5"
        let before = try studio.client.send("GET", frame)
        #expect(before.status == 200, "\(before.text)")
        try original.replacingOccurrences(of: "#5A189A", with: "#00FF00").write(
            to: csv, atomically: true, encoding: .utf8)
        let changed = try StudioFixture.eventually(within: 10) {
            try studio.client.send("GET", frame).body != before.body
        }
        #expect(changed, "variant 0's frame was not drawn again after its accent changed in the CSV")
        try original.write(to: csv, atomically: true, encoding: .utf8)
        let restored = try StudioFixture.eventually(within: 10) {
            try studio.client.send("GET", frame).body == before.body
        }
        #expect(restored)
    }

    /// The variants a fresh load of the job file gives (name and values), or nil when it does not load.
    static func variants(loading file: String) -> String? {
        guard let jobs = try? JobLoader.loadAll(file) else { return nil }
        return JSONValue.array(jobs.compactMap { $0.variant?.json }).serialized()
    }

    /// The variants the studio's `GET /api/job` gives, or nil when it says the job is not valid.
    static func variants(of studio: StudioFixture) throws -> String? {
        let response = try studio.client.send("GET", "/api/job")
        guard case .object(let job)? = try? JSONParser.parse(response.body), job["valid"] == .bool(true),
            let variants = job["variants"]
        else { return nil }
        return variants.serialized()
    }

    private func version(_ studio: StudioFixture) throws -> Int {
        try studio.client.send("GET", "/api/job").json?["version"] as? Int ?? -1
    }
}
