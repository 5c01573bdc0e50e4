import RenderFarmMedia

/// The alpha-packed preset's part of the plan: VAP's layout, config and H.264 level.
extension EncodePlan {
    /// Where colour and alpha sit in each frame of an alpha-packed video.
    package var alphaPackedLayout: AlphaPackedLayout { AlphaPackedLayout(width: width, height: height) }

    /// The level the alpha-packed video declares: the lowest its frame size and rate fit.
    package var alphaPackedLevel: H264Level? {
        let layout = alphaPackedLayout
        return H264Level.lowest(width: layout.videoWidth, height: layout.videoHeight, rate: outputRate)
    }

    /// VAP's config for the alpha-packed video (checked by `checkSupported()` first).
    package var vapConfig: VapConfig {
        VapConfig(layout: alphaPackedLayout, frames: outputFrameCount, fps: Int(outputRate.rounded()))
    }

    /// `-level` for the alpha-packed preset; x264 guesses it for the others.
    var levelArguments: [String] { preset == .alphaPacked ? ["-level", alphaPackedLevel?.name ?? "5.2"] : [] }

    /// Throws when the preset cannot make this video: VAP's players read a whole number of
    /// frames per second, and H.264 ends at level 5.2.
    package func checkSupported() throws(EncodeError) {
        guard preset == .alphaPacked else { return }
        guard outputRate == outputRate.rounded(), outputRate >= 1 else {
            throw .unsupported(
                "--preset alpha-packed needs a whole number of frames per second (VAP's players read an integer "
                    + "fps), got \(rateText); change the job's fps or the frame step")
        }
        guard alphaPackedLevel != nil else {
            let layout = alphaPackedLayout
            throw .unsupported(
                "--preset alpha-packed: \(layout.videoWidth)x\(layout.videoHeight) frames at \(rateText) fps exceed "
                    + "H.264 level 5.2; render with a smaller --scale")
        }
    }
}
