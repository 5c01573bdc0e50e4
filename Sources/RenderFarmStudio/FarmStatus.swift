import Foundation
import RenderFarm
import RenderFarmOutput
import StrictJSON

/// The farm view's data: every render folder under the root (a folder with a job record, whole
/// renders and shards alike), each read by `FolderStatus` exactly as `renderfarm status --json`.
enum FarmStatus {
    /// Render folders under `root`, sorted; hidden folders are skipped and the search is bounded in depth.
    static func folders(under root: String, depth: Int = StudioLimits.folderSearchDepth) -> [String] {
        var found: [String] = []
        var pending = [(root, 0)]
        let files = FileManager.default
        while let (folder, level) = pending.popLast() {
            if files.fileExists(atPath: (folder as NSString).appendingPathComponent(JobRecord.fileName)) {
                found.append(folder)
                continue
            }
            guard level < depth, let names = try? files.contentsOfDirectory(atPath: folder) else { continue }
            for name in names where !name.hasPrefix(".") {
                let path = (folder as NSString).appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                // Symbolic links are not followed: the farm view stays under the root.
                let attributes = try? files.attributesOfItem(atPath: path)
                guard attributes?[.type] as? FileAttributeType == .typeDirectory,
                    files.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue
                else { continue }
                pending.append((path, level + 1))
            }
        }
        return found.sorted()
    }

    /// `GET /api/status`: the root and one `status --json` object per folder (or its error).
    static func json(root: String) -> JSONValue {
        let statuses: [JSONValue] = folders(under: root).map { folder in
            do {
                return try FolderStatus.read(folder).json
            } catch {
                return .object(["folder": .string(folder), "error": .string("\(error)")])
            }
        }
        return .object(["root": .string(root), "folders": .array(statuses)])
    }
}
