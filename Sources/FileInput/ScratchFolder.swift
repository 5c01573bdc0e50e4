import Glibc

/// A folder of one's own under the temporary folder (`TMPDIR`, else `/tmp`), made with `mkdtemp`: no other
/// process, and no other caller in this one, gets the same path.
public enum ScratchFolder {
    /// A new folder named `prefix` and six random characters; nil when none could be made (a sandboxed worker
    /// has no temporary folder it may write).
    public static func make(prefix: String) -> String? {
        let root = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array(((root.hasSuffix("/") ? root : root + "/") + prefix + "XXXXXX").utf8CString)
        return template.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
            return String(cString: base)
        }
    }
}
