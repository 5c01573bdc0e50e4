import RenderFarm

/// `renderfarm compare IMAGE REFERENCE`: a tolerance-based image comparison for CI.
struct CompareCommand: Command {
    static let spec = CommandSpec(
        name: "compare",
        abstract: "Compare a frame with a reference image within tolerances (per-channel difference and PSNR).",
        synopsis: "compare IMAGE REFERENCE",
        examples: [
            "renderfarm compare out/frame_00120.png Tests/References/live-hearts/frame_00120.png",
            "renderfarm compare a.png b.png --max-pixels 0 --diff-image diff.png",
        ],
        discussion: """
            Pixels are compared premultiplied. A pixel counts as changed when a channel differs by
            more than --max-diff (default 32); the images match when at most --max-pixels pixels
            changed (default 8), no channel of any pixel differs by more than --max-error (default
            128), and the PSNR over the drawn pixels (those not fully transparent in either image)
            is at least --min-psnr (default 40 dB): empty space never dilutes a change of what is
            drawn. Anti-aliasing changes from a cairo point release pass; a heart moved by a few
            points, or every drawn pixel off by 31, does not. With --diff-image, a picture of the
            differences is written when there are any. Exit codes: 0 match, 1 differ, 64 usage, 66
            missing image, 65 unreadable image or different sizes.
            """,
        options: [maxDiff, maxPixels, maxError, minPSNR, diffImage],
        positionals: 2...2)

    static let maxDiff = Option(
        "--max-diff", value: "N", help: "Channel difference (0–255) a pixel may have (default 32).")
    static let maxPixels = Option("--max-pixels", value: "N", help: "Changed pixels tolerated (default 8).")
    static let maxError = Option(
        "--max-error", value: "N", help: "Channel difference (0–255) no pixel may exceed (default 128).")
    static let minPSNR = Option(
        "--min-psnr", value: "DB", help: "Lowest acceptable PSNR over the drawn pixels in dB (default 40).")
    static let diffImage = Option(
        "--diff-image", value: "FILE", help: "Write a difference picture here when they differ.")

    let arguments: ParsedArguments
    let tolerance: ComparisonTolerance

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
        var tolerance = ComparisonTolerance()
        tolerance.maxChannelDifference =
            try arguments.integer(Self.maxDiff, in: 0...255, command: "compare")
            ?? tolerance.maxChannelDifference
        tolerance.maxChangedPixels =
            try arguments.integer(Self.maxPixels, in: 0...Int(Int32.max), command: "compare")
            ?? tolerance.maxChangedPixels
        tolerance.maxPixelError =
            try arguments.integer(Self.maxError, in: 0...255, command: "compare") ?? tolerance.maxPixelError
        if let text = arguments[Self.minPSNR] {
            guard let value = Double(text), value >= 0, value <= 200 else {
                throw UsageError(
                    message: "--min-psnr expects a number of dB in 0…200, got \"\(text)\"", command: "compare")
            }
            tolerance.minPSNR = value
        }
        self.tolerance = tolerance
    }

    func run(_ terminal: Terminal) -> ExitCode {
        let (image, reference) = (arguments.positionals[0], arguments.positionals[1])
        let diff = arguments[Self.diffImage]
        do {
            let result = try ImageComparison.compare(image, reference, tolerance: tolerance, diffImage: diff)
            let psnr = result.psnr.isFinite ? String(format: "%.1f dB", result.psnr) : "inf"
            let summary =
                "max channel difference \(result.maxDifference), \(result.changedPixels) pixels changed "
                + "by more than \(tolerance.maxChannelDifference), PSNR \(psnr) over \(result.drawnPixels) drawn pixels"
            if result.passed {
                terminal.print("match: \(image): \(summary)")
                return .ok
            }
            terminal.print(
                "DIFFERENT: \(image) vs \(reference): \(summary) (allowed: \(tolerance.maxChangedPixels) "
                    + "pixels, no channel off by more than \(tolerance.maxPixelError), PSNR ≥ \(tolerance.minPSNR) dB)")
            if let diff { terminal.print("  diff image: \(diff)") }
            return .framesFailed
        } catch {
            return .reporting(error, to: terminal)
        }
    }
}
