import Foundation
import Locking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HarnessClaim {
    /// The studio draws a frame as `render --scale` writes it: the first and the last frame of the job, asked of
    /// a studio the binary serves (its sandboxed workers draw them), against `render --frames N --scale S`.
    static let studio = HarnessClaim(name: "studio and render", applies: { folder in !folder.hasVariants }) {
        context in
        let server = try context.binary.start(
            ["studio", HarnessJobFolder.jobFile, "--port", "0"], in: context.directory)
        defer {
            server.kill()
            _ = server.wait(timeout: 10)
        }
        guard let base = try address(of: server) else { return "the studio printed no address" }
        let frames = HarnessFolderComparison.files(in: context.root(context.reference)).filter { $0.hasSuffix(".png") }
        for frame in Set([0, max(0, frames.count - 1)]).sorted() {
            let out = context.scratch.appendingPathComponent("frame-\(frame)")
            let arguments = render + ["--frames", "\(frame)", "--scale", "0.5", "--out", out.path]
            if let problem = try context.run(arguments) { return problem }
            let name = try FileManager.default.contentsOfDirectory(atPath: out.path).first { $0.hasSuffix(".png") }
            guard let name else { return "render --frames \(frame) wrote no frame" }
            let rendered = try Data(contentsOf: out.appendingPathComponent(name))
            let (status, served) = try get(base + "api/frames/\(frame).png?scale=0.5")
            guard status == 200 else { return "the studio answered \(status) for frame \(frame)" }
            if served != rendered { return "frame \(frame): the studio's PNG differs from render's" }
        }
        return nil
    }

    /// The URL the studio prints first on its standard output, once it listens (at most 60 s).
    private static func address(of server: HarnessProcess) throws -> String? {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, server.process.isRunning {
            if let line = server.output.split(separator: "\n").first(where: { $0.hasPrefix("http://") }) {
                return String(line)
            }
            usleep(20_000)
        }
        return nil
    }

    /// GETs `url` on loopback: the status and the body.
    private static func get(_ url: String) throws -> (Int, Data) {
        guard let address = URL(string: url) else { throw ToolError(message: "not a URL: \(url)") }
        let done = DispatchSemaphore(value: 0)
        let answer = Locked<(Int, Data)?>(nil)
        URLSession.shared.dataTask(with: address) { data, response, _ in
            answer.withLock { $0 = ((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data()) }
            done.signal()
        }.resume()
        guard done.wait(timeout: .now() + 120) == .success, let result = answer.withLock({ $0 }) else {
            throw ToolError(message: "no answer from \(url)")
        }
        return result
    }
}
