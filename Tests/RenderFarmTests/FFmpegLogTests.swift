import Foundation
import Testing

@testable import RenderFarm
@testable import RenderFarmMedia

@Suite("what ffmpeg's error output says about writing its output")
struct FFmpegLogTests {
    static let output = "/videos/clip.mp4"

    @Test("Debian's ffmpeg 5.1 on a full disk (it exits 0): no space left on device, on the final name")
    func fullDiskTrailer() {
        let log = """
            Error writing trailer of /videos/.rf-tmp-12-34-clip.mp4: No space left on device
            Error closing file /videos/.rf-tmp-12-34-clip.mp4: No space left on device

            """
        let error = FFmpegLog.writeError(in: log, output: Self.output)
        #expect(error == .io(path: Self.output, reason: "No space left on device (the disk is full)"))
    }

    @Test("a header that cannot be written for want of space is the same error")
    func fullDiskHeader() {
        let log = "Could not write header for output file #0 (incorrect codec parameters ?): No space left on device\n"
        #expect(
            FFmpegLog.writeError(in: log, output: Self.output)?.description.contains("No space left on device") == true)
    }

    @Test("another failed write names ffmpeg's reason without the temporary name")
    func otherWriteError() {
        let log = "Error closing file /videos/.rf-tmp-12-34-clip.mp4: Input/output error\n"
        #expect(
            FFmpegLog.writeError(in: log, output: Self.output)
                == .io(path: Self.output, reason: "ffmpeg could not write the video: Input/output error"))
    }

    @Test("errors that are not about writing the output are left to ffmpeg's exit status")
    func unrelated() {
        #expect(FFmpegLog.writeError(in: "", output: Self.output) == nil)
        #expect(FFmpegLog.writeError(in: "Unknown encoder 'libx265'\n", output: Self.output) == nil)
    }
}
