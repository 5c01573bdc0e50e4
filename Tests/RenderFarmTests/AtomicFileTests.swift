@testable import FileOutput
import Foundation
import Testing

@testable import RenderFarm

@Suite("Atomic files")
struct AtomicFileTests {
    @Test("a file that cannot be created is named in the error, not the temporary file beside it")
    func errorNamesTheFile() {
        let path = "/nonexistent-\(UUID().uuidString)/edit/live-hearts.otio"
        #expect(throws: OutputError.self) { try AtomicFile.write("{}", to: path) }
        do {
            try AtomicFile.write("{}", to: path)
        } catch {
            #expect(error.description.contains(path), "\(error.description)")
            #expect(!error.description.contains(".rf-tmp-"), "\(error.description)")
        }
    }
}
