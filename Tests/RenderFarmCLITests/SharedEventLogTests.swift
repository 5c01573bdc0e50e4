import Foundation
import Testing

/// One event log read by several layers and sounds of a job: each takes the columns it knows; a column
/// none of them reads is refused. Generated logs and readers, against the same job with a log of its own
/// per reader.
@Suite("One event log for several layers and sounds")
struct SharedEventLogTests {
    /// The readers a generated job may have, each with the columns it names besides `time` (a banner takes any
    /// column: its templates may name any).
    enum Reader: CaseIterable {
        case banner, drop, hearts, sound

        var columns: [String] {
            switch self {
            case .banner: ["user", "gift", "count"]
            case .drop: ["shape", "color", "size"]
            case .hearts: ["color", "size"]
            case .sound: ["gain"]
            }
        }

        /// The job's layer reading `log`, or nil for the sound (which is in `audio`).
        func layer(_ log: String, columns: [String]) -> String? {
            switch self {
            case .banner:
                let fields = ["user", "gift", "count"].filter(columns.contains).map { "{{\($0)}}" }
                let text = fields.isEmpty ? "a gift!" : fields.joined(separator: " ")
                return """
                    { "effect": "text", "params": { "text": "\(text)", "events": "\(log)", "size": 14, "maxLines": 1,
                      "rect": { "x": 10, "y": 200, "width": 200, "height": 200 } } }
                    """
            case .drop:
                return """
                    { "effect": "parabolic-drop", "params": { "events": "\(log)", "from": [300, 500],
                      "target": { "x": 40, "y": 560, "width": 200, "height": 60 } } }
                    """
            case .hearts:
                return """
                    { "effect": "floating-heart", "params": { "events": "\(log)", "emitter": [300, 600], "lifetime": 2 } }
                    """
            case .sound:
                return nil
            }
        }
    }

    /// Every column a log may have, with a value drawn for a row; "colour" and "usr" no reader takes.
    static func value(_ column: String, _ random: inout FuzzRandom) -> String {
        switch column {
        case "user", "usr": random.pick(["aiko", "bo", "chen", "dara"])
        case "gift": random.pick(["Rose", "Crown", "Star"])
        case "count": "\(random.integer(1...9))"
        case "shape": random.pick(["circle", "gift", "heart", "coin", "box"])
        case "color", "colour": random.colour()
        case "size": "\(random.integer(20...40))"
        default: "\(random.integer(-9...0))"
        }
    }

    /// A job whose readers read the logs `logs` names; a banner's template names the log's `columns` it takes.
    static func job(readers: [Reader], columns: [String], logs: (Reader) -> String) -> String {
        let layers = readers.compactMap { $0.layer(logs($0), columns: columns) }
        let layerList = layers.joined(separator: ",\n")
        let sound =
            readers.contains(.sound)
            ? #", "audio": { "sounds": [ { "file": "ding.mp3", "events": "\#(logs(.sound))" } ] }"# : ""
        return """
            { "version": 1, "name": "shared", "seed": 7, "fps": 30, "duration": 3,
              "canvas": { "width": 375, "height": 667 }, "layers": [ \(layerList) ]\(sound) }
            """
    }

    @Test(
        "12 generated jobs: a log is accepted when every column has a reader, and each reader draws as from a log of its own"
    )
    func generated() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["RENDERFARM_SHARED_LOG_SEED"] ?? "") ?? 0x6C_6F67
        var (accepted, refused) = (0, 0)
        for run in 0..<12 {
            var random = FuzzRandom(seed: seed &+ UInt64(run))
            let label = "RENDERFARM_SHARED_LOG_SEED=\(seed &+ UInt64(run))"
            var readers = random.sample(Reader.allCases, random.integer(2...4))
            if readers.allSatisfy({ $0 == .sound }) { readers.append(.drop) }
            let pool = ["user", "gift", "count", "shape", "color", "size", "gain"]
            var columns = random.sample(pool, random.integer(1...pool.count))
            let stray = random.chance(0.3) ? random.pick(["colour", "usr"]) : nil
            if let stray { columns.append(stray) }
            // A banner's template names only the columns the log has; ones no reader takes are refused, and a
            // banner takes any.
            let read = Set(readers.flatMap(\.columns))
            let unread = readers.contains(.banner) ? [] : columns.filter { !read.contains($0) }
            let rows = (0..<4).map { index in
                (["\(0.3 + 0.5 * Double(index))"] + columns.map { Self.value($0, &random) }).joined(separator: ",")
            }
            func csv(_ names: [String]) -> String {
                let kept = names.map { name in columns.firstIndex(of: name).map { $0 + 1 } ?? 0 }
                return
                    ([(["time"] + names).joined(separator: ",")]
                    + rows.map { row in
                        let cells = row.split(separator: ",", omittingEmptySubsequences: false)
                        return ([cells[0]] + kept.map { cells[$0] }).joined(separator: ",")
                    }).joined(separator: "\n") + "\n"
            }
            let folder = try TemporaryFolder()
            try FileManager.default.copyItem(
                atPath: Binary.packageRoot.appendingPathComponent("jobs/assets/ding.mp3").path,
                toPath: folder.url.appendingPathComponent("ding.mp3").path)
            try folder.write(csv(columns), to: "log.csv")
            try folder.write(Self.job(readers: readers, columns: columns, logs: { _ in "log.csv" }), to: "shared.json")
            let validate = CLI.run(["validate", folder.url.appendingPathComponent("shared.json").path])
            guard unread.isEmpty else {
                refused += 1
                #expect(validate.status == 65, "\(label): \(columns) read by \(readers)")
                for column in unread {
                    #expect(
                        validate.stderr.contains("column \"\(column)\" is not a field"), "\(label): \(validate.stderr)")
                }
                continue
            }
            #expect(validate.status == 0, "\(label): \(columns) read by \(readers): \(validate.stderr)")
            accepted += 1
            // The same job with a log of its own per reader, holding only the columns it takes.
            for reader in readers {
                try folder.write(csv(columns.filter(reader.columns.contains)), to: "\(reader).csv")
            }
            try folder.write(Self.job(readers: readers, columns: columns, logs: { "\($0).csv" }), to: "own.json")
            var frames: [[Data]] = []
            for name in ["shared", "own"] {
                let out = folder.url.appendingPathComponent("out-\(name)")
                let render = CLI.run([
                    "render", folder.url.appendingPathComponent("\(name).json").path, "--out", out.path,
                    "--frames", "0-89:9", "--scale", "0.5", "--progress", "none",
                ])
                #expect(render.status == 0, "\(label) \(name): \(render.stderr)")
                let files = ((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []).filter {
                    $0.hasSuffix(".png")
                }
                frames.append(try files.sorted().map { try Data(contentsOf: out.appendingPathComponent($0)) })
            }
            #expect(frames[0].count == 10 && frames[0] == frames[1], "\(label): \(readers) draw otherwise from one log")
            if readers.contains(.sound) {
                let mixes = ["shared", "own"].map { name -> Data in
                    let wav = folder.url.appendingPathComponent("\(name).wav")
                    let mix = CLI.run(["mix", folder.url.appendingPathComponent("\(name).json").path, "-o", wav.path])
                    #expect(mix.status == 0, "\(label) \(name): \(mix.stderr)")
                    return (try? Data(contentsOf: wav)) ?? Data()
                }
                #expect(!mixes[0].isEmpty && mixes[0] == mixes[1], "\(label): the sound plays otherwise from one log")
            }
        }
        // The generator must make both kinds (the seeds above do): logs every column of which has a reader,
        // and logs with a column none reads.
        #expect(accepted >= 3 && refused >= 2, "\(accepted) accepted, \(refused) refused")
    }

    @Test("a misspelt column is refused with its reader's fields, the others' and a suggestion")
    func misspelt() throws {
        let folder = try TemporaryFolder()
        try folder.write("time,colr,size\n0.5,#FF0000,30\n", to: "log.csv")
        try folder.write(Self.job(readers: [.hearts, .drop], columns: [], logs: { _ in "log.csv" }), to: "job.json")
        let validate = CLI.run(["validate", folder.url.appendingPathComponent("job.json").path])
        #expect(validate.status == 65)
        #expect(
            validate.stderr.contains(
                "log.csv: column \"colr\" is not a field of events (did you mean \"color\"?); fields: time, "),
            "\(validate.stderr)")
        #expect(validate.stderr.contains("(and the job's other readers of the log take "), "\(validate.stderr)")
        // A banner takes any column, so a misspelt one is told where its template misses it, with the column.
        try folder.write("time,usr,size\n0.5,aiko,30\n", to: "log.csv")
        try folder.write(
            Self.job(readers: [.banner, .drop], columns: ["user"], logs: { _ in "log.csv" }), to: "job.json")
        let banner = CLI.run(["validate", folder.url.appendingPathComponent("job.json").path])
        #expect(banner.status == 65)
        #expect(
            banner.stderr.contains(
                "log.csv:2: user: missing (time 0.5 s): the text's template names {{user}} (did you mean the column \"usr\"?)"
            ),
            "\(banner.stderr)")
    }
}
